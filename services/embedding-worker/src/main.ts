import { createLogger, loadConfig, requireSplitMode, runService } from '@ams/core';
import { createDatabase, migrateLatest } from '@ams/db';
import { createEmbedder, SwitchableEmbedder } from '@ams/embeddings';
import { MemoryLifecycleSweep } from '@ams/memories';
import { createEmbeddingQueue, EmbeddingWorker, followActiveModel, ingestionPolicy, modelLoader, reembedRunner, retieringLoop, workerSettings } from '@ams/ingestion';
import { createWebhookQueue, enqueueDelivery } from '@ams/webhooks';
import { serveMetrics } from '@ams/metrics';
import { workerMetrics } from './metrics';

/**
 * Batches in flight get this long to finish on SIGTERM; claims still held then are handed back
 * for another worker. Under Docker's default 10 s stop timeout, so shutdown stays graceful.
 */
const DRAIN_MS = 8_000;

/**
 * The embedding worker process: `embedding` queue jobs wake it; it claims pending memories from
 * PostgreSQL in batches, embeds each batch in one model call and records embedding.completed.
 * A sweep of the database recovers whatever a lost job or a dead worker left.
 */
runService(DRAIN_MS + 5_000, async () => {
  const config = loadConfig();
  const logger = createLogger('embedding-worker', config);
  requireSplitMode(config, 'embedding worker');
  const db = await createDatabase(config, logger);
  await migrateLatest(db.knex);
  const configured = await createEmbedder(config.embedding, logger);
  // Embeds with the store's active model, and runs re-embed runs (ams reembed) beside the queue.
  const models = modelLoader(config, [configured]);
  const embedder = new SwitchableEmbedder(configured);
  await followActiveModel({ db: db.knex, embedder, models, logger });
  const reembed = reembedRunner(config, { db: db.knex, logger, models, embedder });
  const queueOptions = { redisUrl: config.queueUrl, prefix: config.redisKeyPrefix, logger };
  const webhooks = createWebhookQueue({ ...queueOptions, isWorker: false });

  // Scrapes read the worker, which is made next (metrics first: the worker reports to them).
  const metrics = workerMetrics(db.knex, () => worker);
  const worker = new EmbeddingWorker(
    {
      db: db.knex,
      embedder,
      logger,
      ...ingestionPolicy(config),
      onDeliveries: (accountId, ids) => ids.forEach((id) => void enqueueDelivery(webhooks, accountId, id)),
    },
    workerSettings(config),
    (batch) => metrics.observeBatch(batch),
  );
  const queue = createEmbeddingQueue({ ...queueOptions, isWorker: true });
  // A job only says "work is waiting": the batch claims the rows. Enough concurrency that a whole
  // batch's jobs are taken at once and share the batch wait.
  const { concurrency, batchSize, metricsPort } = config.embeddingWorker;
  queue.process(concurrency * batchSize, async () => worker.notify());
  worker.start();
  reembed.start();
  // Expiry (memory.expired) and history retention, beside the reconciler's sweep.
  const lifecycle = new MemoryLifecycleSweep(
    { db: db.knex, logger, dispatch: (accountId, ids) => ids.forEach((id) => void enqueueDelivery(webhooks, accountId, id)) },
    config.memoryLifecycle,
  );
  lifecycle.start();
  // Re-tiering (docs/api.md, "Re-tiering") runs beside the other periodic work; its events go out as the worker's do.
  const retiering = retieringLoop(config, {
    db: db.knex,
    logger,
    dispatch: (accountId, ids) => ids.forEach((id) => void enqueueDelivery(webhooks, accountId, id)),
  });
  retiering.start();
  const server = metricsPort > 0 ? serveMetrics(metrics.registry, metricsPort, config.host) : undefined;
  server?.on('error', (err) => logger.warn('metrics server unavailable', { port: metricsPort, error: err.message }));
  logger.info('embedding worker started', {
    model: embedder.model,
    concurrency,
    batch_size: batchSize,
    batch_wait_ms: config.embeddingWorker.batchWaitMs,
    metrics: server ? `http://${config.host}:${metricsPort}/metrics` : 'off',
  });

  return {
    logger,
    async stop() {
      logger.info('draining', { batches_in_flight: worker.inFlight });
      // The queue stops taking jobs at once (its handler returns at once, so nothing waits there).
      await Promise.all([queue.close(1_000), worker.stop(DRAIN_MS), reembed.stop(), lifecycle.stop(), retiering.stop(DRAIN_MS)]);
      await webhooks.close(1_000);
      server?.close();
      await db.close();
    },
  };
});
