import type { Logger } from '@ams/core';
import { JobQueue, QUEUES, WebhookJob, webhookJobId, webhookJobSchema } from '@ams/jobs';
import type { RetryScheduler } from './dispatcher';

/** The `webhooks` queue: producers (the API) and consumers (dispatchers) build it the same way. */
export function createWebhookQueue(opts: { redisUrl: string; prefix: string; logger: Logger; isWorker: boolean }): JobQueue<WebhookJob> {
  return new JobQueue<WebhookJob>(QUEUES.webhooks, { ...opts, schema: webhookJobSchema });
}

/** Enqueues a delivery's next attempt; `runAt` makes it a delayed job. Resolves false, never throws. */
export function enqueueDelivery(
  queue: JobQueue<WebhookJob>,
  accountId: string,
  deliveryId: string,
  attemptsMade = 0,
  runAt?: Date,
): Promise<boolean> {
  return queue.enqueue(webhookJobId(deliveryId, attemptsMade), { accountId, deliveryId }, { runAt });
}

/** Split mode's retries: a delayed job, so whichever dispatcher is free takes the retry when it is due. */
export const queuedRetries =
  (queue: JobQueue<WebhookJob>): RetryScheduler =>
  (retry) =>
    void enqueueDelivery(queue, retry.accountId, retry.deliveryId, retry.attemptsMade, retry.runAt);
