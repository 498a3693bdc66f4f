import { ConfigError, createLogger, loadConfig } from '@ams/core';
import { createDatabase, embeddingQueueRepository, migrateLatest } from '@ams/db';
import { createEmbedder } from '@ams/embeddings';
import { EmbeddingWorker, workerSettings } from '@ams/ingestion';
import { EmbeddingJob, JobQueue, QUEUES, WebhookJob } from '@ams/jobs';
import { startMetricsServer } from './metrics';

const SHUTDOWN_GRACE_MS = 30_000;

/**
 * The embedding worker process: `embedding` queue jobs wake it, it claims pending memories from
 * PostgreSQL in batches, embeds each batch in one model call, and records embedding.completed.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('embedding-worker', config);
  if (!config.databaseUrl || !config.redisUrl) {
    throw new ConfigError('The embedding worker runs in split mode: set DATABASE_URL and REDIS_URL (embedded mode runs it inside the API).');
  }
  const db = await createDatabase(config);
  await migrateLatest(db.knex);
  const embedder = await createEmbedder(config.embedding, logger);
  const webhooks = new JobQueue<WebhookJob>(QUEUES.webhooks, { redisUrl: config.redisUrl, prefix: config.redisKeyPrefix, isWorker: false, logger });
  const worker = new EmbeddingWorker(
    {
      db: db.knex,
      embedder,
      logger,
      maxAttempts: config.embeddingWorker.maxAttempts,
      onDeliveries: (accountId, ids) => ids.forEach((deliveryId) => void webhooks.enqueue(deliveryId, { accountId, deliveryId })),
    },
    workerSettings(config),
  );
  const queue = new JobQueue<EmbeddingJob>(QUEUES.embedding, { redisUrl: config.redisUrl, prefix: config.redisKeyPrefix, isWorker: true, logger });
  // A job only says "work is waiting": the database row is the truth and the batch claims it.
  queue.process(config.embeddingWorker.concurrency * config.embeddingWorker.batchSize, async () => worker.notify());
  worker.start();
  const metrics = startMetricsServer(config.embeddingWorker.metricsPort, config.host, async () => ({
    waiting: (await embeddingQueueRepository.backlog(db.knex)).waiting,
    counters: worker.counters,
  }));
  metrics.on('error', (err) => logger.warn('metrics server unavailable', { error: err.message }));
  logger.info('embedding worker started', { model: embedder.model, concurrency: config.embeddingWorker.concurrency, batch_size: config.embeddingWorker.batchSize });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    await queue.close(5_000);
    await worker.stop();
    await webhooks.close(5_000);
    metrics.close();
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
