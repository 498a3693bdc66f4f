import { ConfigError, createLogger, loadConfig } from '@ams/core';
import { createDatabase, migrateLatest } from '@ams/db';
import { createWebhookQueue, dispatcherSettings, OutboxReconciler, queuedRetries, WebhookDispatcher } from '@ams/webhooks';

/**
 * In-flight attempts get this long to finish on SIGTERM; claims still held then are handed back
 * for another dispatcher. Under Docker's default 10 s stop timeout, so shutdown stays graceful.
 */
const DRAIN_MS = 8_000;

/**
 * The webhook dispatcher process: consumes the `webhooks` queue (low latency; retries are delayed
 * jobs) and sweeps the outbox in PostgreSQL for everything a queue can lose.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('webhook-dispatcher', config);
  if (!config.databaseUrl || !config.redisUrl) {
    throw new ConfigError('The webhook dispatcher runs in split mode: set DATABASE_URL and REDIS_URL (embedded mode runs it inside the API).');
  }
  const settings = dispatcherSettings(config);
  const db = await createDatabase(config);
  await migrateLatest(db.knex);

  const queue = createWebhookQueue({ redisUrl: config.redisUrl, prefix: config.redisKeyPrefix, logger, isWorker: true });
  const dispatcher = new WebhookDispatcher(db.knex, logger, settings, { scheduleRetry: queuedRetries(queue) });
  const reconciler = new OutboxReconciler(dispatcher, settings.reconcileIntervalMs, logger);
  queue.process(settings.concurrency, (job) => dispatcher.deliver(job.accountId, job.deliveryId));
  await reconciler.start();
  logger.info('webhook dispatcher started', {
    concurrency: settings.concurrency,
    timeout_ms: settings.timeoutMs,
    retry_delays_ms: settings.retryDelaysMs,
    reconcile_interval_ms: settings.reconcileIntervalMs,
    extra_ca: settings.ca !== undefined,
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal, in_flight: dispatcher.inFlight });
    setTimeout(() => process.exit(1), DRAIN_MS + 5_000).unref();
    reconciler.stop();
    // The queue stops taking jobs at once; both wait for the attempts already running.
    await Promise.all([dispatcher.stop(DRAIN_MS), queue.close(DRAIN_MS + 1_000)]);
    await db.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : ((err as Error).stack ?? String(err))}\n`);
  process.exit(1);
});
