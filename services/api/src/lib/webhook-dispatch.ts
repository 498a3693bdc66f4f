import type { Config, Logger } from '@ams/core';
import type { Database } from '@ams/db';
import { JobQueue, QUEUES, WebhookJob } from '@ams/jobs';
import { dispatcherSettings, WebhookDispatcher } from '@ams/webhooks';

export interface WebhookDispatch {
  dispatch: (accountId: string, deliveryIds: string[]) => void;
  close(): Promise<void>;
}

/**
 * Split mode: enqueue one job per delivery for the dispatcher processes (job id = delivery id).
 * Embedded mode: run the dispatcher in this process. Either way a lost hand-off is found again by
 * the dispatcher's sweep of the outbox.
 */
export function createWebhookDispatch(config: Config, db: Database, logger: Logger): WebhookDispatch {
  if (config.redisUrl) {
    const queue = new JobQueue<WebhookJob>(QUEUES.webhooks, { redisUrl: config.redisUrl, prefix: config.redisKeyPrefix, isWorker: false, logger });
    return {
      dispatch: (accountId, ids) => {
        for (const deliveryId of ids) void queue.enqueue(deliveryId, { accountId, deliveryId });
      },
      close: () => queue.close(),
    };
  }
  const dispatcher = new WebhookDispatcher(db.knex, logger, dispatcherSettings(config));
  dispatcher.start();
  return {
    dispatch: (accountId, ids) => {
      for (const id of ids) void dispatcher.deliver(accountId, id);
    },
    close: () => dispatcher.stop(),
  };
}
