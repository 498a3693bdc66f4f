import type { Config, Logger } from '@ams/core';
import type { Database } from '@ams/db';
import { webhookDeliveryMetrics, webhookOutboxGauges } from '@ams/metrics';
import type { Registry } from 'prom-client';
import { createWebhookQueue, dispatcherSettings, enqueueDelivery, startInProcessDispatcher } from '@ams/webhooks';

/** Attempts in flight get this long to finish when the API stops (inside its shutdown grace). */
const DRAIN_MS = 5_000;

export interface WebhookDispatch {
  /** AppContext.webhookDispatch: call after the transaction that recorded the deliveries commits. */
  dispatch: (accountId: string, deliveryIds: string[]) => void;
  close(): Promise<void>;
}

/**
 * With queues (config.queueUrl: REDIS_URL beside DATABASE_URL): one `webhooks` job per delivery for the dispatcher processes,
 * fire-and-forget (a failed enqueue is logged by the queue and never fails the request).
 * Without queues: the dispatcher runs in this process. Either way a lost hand-off is found again
 * by a dispatcher's sweep of the outbox. Tests use this to wire a TestApp's ctx.webhookDispatch.
 * With `metrics`, the in-process dispatcher counts its deliveries there, beside the outbox gauges
 * (a dispatcher process reports those in split mode).
 */
export function createWebhookDispatch(config: Config, db: Database, logger: Logger, metrics?: Registry): WebhookDispatch {
  if (config.queueUrl) {
    const queue = createWebhookQueue({ redisUrl: config.queueUrl, prefix: config.redisKeyPrefix, logger, isWorker: false });
    return {
      dispatch: (accountId, deliveryIds) => {
        for (const id of deliveryIds) void enqueueDelivery(queue, accountId, id);
      },
      close: () => queue.close(),
    };
  }
  if (metrics) webhookOutboxGauges(metrics, db.knex);
  const onAttempt = metrics ? webhookDeliveryMetrics(metrics) : undefined;
  const dispatcher = startInProcessDispatcher(db.knex, logger, dispatcherSettings(config), { onAttempt });
  return {
    dispatch: (accountId, deliveryIds) => dispatcher.notify(accountId, deliveryIds),
    close: () => dispatcher.stop(DRAIN_MS),
  };
}
