import type { Knex } from 'knex';
import type { Logger } from '@ams/core';
import { AttemptResult, DeliveryRow, webhookDeliveriesRepository, webhooksRepository } from '@ams/db';
import { deliverOnce, DeliveryOptions } from '../http-delivery';
import { nextAttemptDelayMs } from '../retry-schedule';
import { buildDeliveryHeaders } from '../signing';

export interface DeliverySettings extends DeliveryOptions {
  retryDelaysMs: number[];
  userAgent: string;
}

/**
 * One attempt at one claimed delivery: send, then record the outcome. 2xx succeeds; 410 disables
 * the webhook; other failures are retried on the schedule, then the delivery is failed and kept.
 * Returns the result so the caller can wake itself for the retry.
 */
export async function deliverDelivery(db: Knex, logger: Logger, settings: DeliverySettings, d: DeliveryRow): Promise<AttemptResult | undefined> {
  const webhook = d.webhook_id ? await webhooksRepository.find(db, d.account_id, d.webhook_id) : undefined;
  if (d.webhook_id && (!webhook || !webhook.enabled)) {
    await webhookDeliveriesRepository.skip(db, d, webhook ? 'webhook is disabled' : 'webhook was deleted');
    return undefined;
  }
  const url = webhook?.url ?? d.target_url!;
  const rawBody = JSON.stringify(d.payload);
  const headers = buildDeliveryHeaders({
    eventId: d.event_id,
    eventType: d.event_type,
    secret: webhook?.secret,
    rawBody,
    timestampSeconds: Math.floor(Date.now() / 1000),
    userAgent: settings.userAgent,
  });
  const outcome = await deliverOnce({ url, headers, body: rawBody }, settings);
  const attempts = d.attempts + 1;
  const base = { statusCode: outcome.statusCode, error: outcome.error, responseExcerpt: outcome.responseExcerpt };
  let result: AttemptResult;
  if (outcome.ok) {
    result = { ...base, status: 'succeeded' };
  } else if (outcome.gone && webhook) {
    await webhooksRepository.update(db, d.account_id, webhook.id, { enabled: false, disabledReason: 'receiver answered 410 Gone' });
    result = { ...base, status: 'failed' };
  } else {
    const delay = outcome.retryable ? nextAttemptDelayMs(attempts, settings.retryDelaysMs) : null;
    result = delay === null ? { ...base, status: 'failed' } : { ...base, status: 'pending', nextAttemptAt: new Date(Date.now() + delay) };
  }
  await webhookDeliveriesRepository.recordAttempt(db, d, result);
  logger.info('webhook delivery attempt', {
    delivery_id: d.id,
    event_id: d.event_id,
    event_type: d.event_type,
    attempt: attempts,
    status: result.status,
    status_code: outcome.statusCode,
    duration_ms: outcome.durationMs,
    error: outcome.error ?? undefined,
  });
  return result;
}
