import type { Config, Logger } from '@ams/core';
import type { Database } from '@ams/db';
import type { JobQueue, WebhookJob } from '@ams/jobs';
import type { Dispatch } from '@ams/memories';
import { webhookDeliveryMetrics, webhookOutboxGauges } from '@ams/metrics';
import type { Registry } from 'prom-client';
import { createWebhookQueue, dispatcherSettings, enqueueDelivery, startInProcessDispatcher } from '@ams/webhooks';
import { DRAIN_MS } from './drain';

export interface WebhookDispatch {
  /** Call after the transaction that recorded the deliveries commits. Never throws. */
  dispatch: Dispatch;
  close(): Promise<void>;
}

/** Hands each delivery to the `webhooks` queue, fire-and-forget (a failed enqueue is logged by the queue; the outbox sweep finds it). */
export const enqueueDeliveries =
  (queue: JobQueue<WebhookJob>): Dispatch =>
  (accountId, deliveryIds) => {
    for (const id of deliveryIds) void enqueueDelivery(queue, accountId, id);
  };

/**
 * With queues (config.queueUrl): one `webhooks` job per delivery for the dispatcher processes.
 * Without: the dispatcher runs in this process, counting its deliveries into `registry` beside the
 * outbox gauges. Either way a lost hand-off is found again by a dispatcher's sweep of the outbox.
 */
export function webhookDispatch(config: Config, db: Database, logger: Logger, registry: Registry): WebhookDispatch {
  if (config.queueUrl) {
    const queue = createWebhookQueue({ redisUrl: config.queueUrl, prefix: config.redisKeyPrefix, logger, isWorker: false });
    return { dispatch: enqueueDeliveries(queue), close: () => queue.close(1_000) };
  }
  webhookOutboxGauges(registry, db.knex);
  const dispatcher = startInProcessDispatcher(db.knex, logger, dispatcherSettings(config), { onAttempt: webhookDeliveryMetrics(registry) });
  return { dispatch: (accountId, deliveryIds) => dispatcher.notify(accountId, deliveryIds), close: () => dispatcher.stop(DRAIN_MS) };
}
