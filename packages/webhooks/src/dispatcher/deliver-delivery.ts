import type { Logger, SecretBox } from '@ams/core';
import { AttemptResult, DeliveryRow, revealWebhookSecret, webhookDeliveriesRepository, webhooksRepository, type Knex } from '@ams/db';
import { deliverOnce, DeliveryOptions, DeliveryOutcome } from '../http-delivery';
import { nextAttemptDelayMs } from '../retry-schedule';
import { buildDeliveryHeaders } from '../signing';

export interface DeliverySettings extends DeliveryOptions {
  retryDelaysMs: number[];
  userAgent: string;
  /** Opens the webhooks' sealed secrets (secretBoxFor(config)). */
  secrets: SecretBox;
}

const ERROR_MAX_CHARS = 1_024;

/**
 * What became of one attempt, for metrics: delivered (2xx), retry (failed, another attempt is
 * scheduled), dead (failed, out of retries), failed (refused for good at once: a 4xx, 410 or a
 * blocked address), skipped (the webhook is disabled or gone: not sent), discarded (sent, but the
 * claim had expired and another dispatcher owns the delivery).
 */
type DeliveryOutcomeLabel = 'delivered' | 'retry' | 'dead' | 'failed' | 'skipped' | 'discarded';

export interface AttemptObservation {
  outcome: DeliveryOutcomeLabel;
  /** Time the receiver took (absent when nothing was sent). */
  durationMs?: number;
}

function outcomeLabel(result: AttemptResult, outcome: DeliveryOutcome): DeliveryOutcomeLabel {
  if (result.status === 'succeeded') return 'delivered';
  if (result.status === 'pending') return 'retry';
  return outcome.retryable ? 'dead' : 'failed';
}

/** What to record for one attempt: 2xx succeeds; 410 and refusals fail at once; the rest retry on the schedule, then fail. */
function attemptResult(outcome: DeliveryOutcome, attemptsMade: number, retryDelaysMs: number[], now = Date.now()): AttemptResult {
  const base = { statusCode: outcome.statusCode, error: outcome.error?.slice(0, ERROR_MAX_CHARS) ?? null, responseExcerpt: outcome.responseExcerpt };
  if (outcome.ok) return { ...base, status: 'succeeded' };
  const delay = outcome.retryable ? nextAttemptDelayMs(attemptsMade, retryDelaysMs) : null;
  return delay === null ? { ...base, status: 'failed' } : { ...base, status: 'pending', nextAttemptAt: new Date(now + delay) };
}

/**
 * One attempt at one claimed delivery: re-read its webhook, send the stored payload, record the
 * outcome (only while the claim still holds). A disabled or deleted webhook gets nothing: the
 * delivery is failed unsent. 410 Gone also disables the webhook. Logs ids and timings, never
 * the URL's credentials, the secret or the body. Returns what was recorded, if anything; tells
 * `observe` what became of the attempt.
 */
export async function deliverDelivery(
  db: Knex,
  logger: Logger,
  settings: DeliverySettings,
  d: DeliveryRow,
  observe: (o: AttemptObservation) => void = () => {},
): Promise<AttemptResult | undefined> {
  const log = { delivery_id: d.id, event_id: d.event_id, event_type: d.event_type, webhook_id: d.webhook_id ?? undefined };
  const webhook = d.webhook_id ? await webhooksRepository.find(db, d.account_id, d.webhook_id) : undefined;
  if (d.webhook_id && (!webhook || !webhook.enabled)) {
    const reason = webhook ? 'not sent: the webhook is disabled' : 'not sent: the webhook was deleted';
    if (await webhookDeliveriesRepository.skip(db, d, reason)) {
      logger.info('webhook delivery skipped', { ...log, reason });
      observe({ outcome: 'skipped' });
    }
    return undefined;
  }
  // The body is the stored payload's JSON, signed exactly as sent; jsonb output is canonical, so
  // every retry sends the same bytes.
  const rawBody = JSON.stringify(d.payload);
  const headers = buildDeliveryHeaders({
    eventId: d.event_id,
    eventType: d.event_type,
    secret: webhook ? revealWebhookSecret(webhook, settings.secrets) : null,
    rawBody,
    timestampSeconds: Math.floor(Date.now() / 1000),
    userAgent: settings.userAgent,
  });
  const outcome = await deliverOnce({ url: webhook?.url ?? d.target_url!, headers, body: rawBody }, settings);
  const attempt = d.attempts + 1;
  const result = attemptResult(outcome, attempt, settings.retryDelaysMs);
  if (outcome.gone && webhook) {
    await webhooksRepository.update(db, d.account_id, webhook.id, { enabled: false, disabledReason: 'the receiver answered 410 Gone' });
  }
  const recorded = await webhookDeliveriesRepository.recordAttempt(db, d, result);
  const fields = { ...log, attempt, status: result.status, status_code: outcome.statusCode ?? undefined, duration_ms: outcome.durationMs, error: result.error ?? undefined };
  observe({ outcome: recorded ? outcomeLabel(result, outcome) : 'discarded', durationMs: outcome.durationMs });
  if (!recorded) {
    logger.warn('webhook delivery outcome discarded: the claim expired and another dispatcher took the delivery', fields);
    return undefined;
  }
  if (result.status === 'failed') logger.warn('webhook delivery failed for good', fields);
  else logger.info('webhook delivery attempt', { ...fields, next_attempt_at: result.nextAttemptAt?.toISOString() });
  return result;
}
