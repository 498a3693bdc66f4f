import { ConfigError, createLogger, loadConfig } from '@ams/core';
import { createDatabase, migrateLatest } from '@ams/db';
import { JobQueue, QUEUES, WebhookJob } from '@ams/jobs';
import { dispatcherSettings, WebhookDispatcher } from '@ams/webhooks';

const SHUTDOWN_GRACE_MS = 35_000;

/**
 * The webhook dispatcher process: consumes the `webhooks` queue for low latency and sweeps the
 * outbox in PostgreSQL for everything else (retries that are due, lost jobs, a flushed Redis).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('webhook-dispatcher', config);
  if (!config.databaseUrl || !config.redisUrl) {
    throw new ConfigError('The webhook dispatcher runs in split mode: set DATABASE_URL and REDIS_URL (embedded mode runs it inside the API).');
  }
  const db = await createDatabase(config);
  await migrateLatest(db.knex);
  const dispatcher = new WebhookDispatcher(db.knex, logger, dispatcherSettings(config));
  const queue = new JobQueue<WebhookJob>(QUEUES.webhooks, { redisUrl: config.redisUrl, prefix: config.redisKeyPrefix, isWorker: true, logger });
  queue.process(config.webhooks.concurrency, (job) => dispatcher.deliver(job.accountId, job.deliveryId));
  dispatcher.start();
  logger.info('webhook dispatcher started', { concurrency: config.webhooks.concurrency });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    await queue.close(SHUTDOWN_GRACE_MS - 5_000);
    await dispatcher.stop();
    await db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : (err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
