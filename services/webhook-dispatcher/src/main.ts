import { createLogger, loadConfig, requireSplitMode, runService } from '@ams/core';
import { createDatabase, migrateLatest, sealWebhookSecrets } from '@ams/db';
import { serveMetrics } from '@ams/metrics';
import { createWebhookQueue, dispatcherSettings, OutboxReconciler, queuedRetries, WebhookDispatcher } from '@ams/webhooks';
import { dispatcherMetrics } from './metrics';

/**
 * In-flight attempts get this long to finish on SIGTERM; claims still held then are handed back
 * for another dispatcher. Under Docker's default 10 s stop timeout, so shutdown stays graceful.
 */
const DRAIN_MS = 8_000;

/**
 * The webhook dispatcher process: consumes the `webhooks` queue (low latency; retries are delayed
 * jobs) and sweeps the outbox in PostgreSQL for everything a queue can lose.
 */
runService(DRAIN_MS + 5_000, async () => {
  const config = loadConfig();
  const logger = createLogger('webhook-dispatcher', config);
  requireSplitMode(config, 'webhook dispatcher');
  const settings = dispatcherSettings(config);
  const db = await createDatabase(config, logger);
  await migrateLatest(db.knex);
  const sealed = await sealWebhookSecrets(db.knex, settings.secrets);
  if (sealed) logger.info('webhook secrets sealed with the current key', { webhooks: sealed });

  const queue = createWebhookQueue({ redisUrl: config.queueUrl, prefix: config.redisKeyPrefix, logger, isWorker: true });
  const metrics = dispatcherMetrics(db.knex);
  const dispatcher = new WebhookDispatcher(db.knex, logger, settings, { scheduleRetry: queuedRetries(queue), onAttempt: (o) => metrics.observeAttempt(o) });
  const reconciler = new OutboxReconciler(dispatcher, settings.reconcileIntervalMs, logger);
  queue.process(settings.concurrency, (job) => dispatcher.deliver(job.accountId, job.deliveryId));
  await reconciler.start();
  const { metricsPort } = config.webhooks;
  const server = metricsPort > 0 ? serveMetrics(metrics.registry, metricsPort, config.host) : undefined;
  server?.on('error', (err) => logger.warn('metrics server unavailable', { port: metricsPort, error: err.message }));
  logger.info('webhook dispatcher started', {
    concurrency: settings.concurrency,
    timeout_ms: settings.timeoutMs,
    retry_delays_ms: settings.retryDelaysMs,
    reconcile_interval_ms: settings.reconcileIntervalMs,
    extra_ca: settings.ca !== undefined,
    metrics: server ? `http://${config.host}:${metricsPort}/metrics` : 'off',
  });

  return {
    logger,
    async stop() {
      logger.info('draining', { in_flight: dispatcher.inFlight });
      reconciler.stop();
      // The queue stops taking jobs at once; both wait for the attempts already running.
      await Promise.all([dispatcher.stop(DRAIN_MS), queue.close(DRAIN_MS + 1_000)]);
      server?.close();
      await db.close();
    },
  };
});
