import type { Config, Logger } from '@ams/core';
import type { Database } from '@ams/db';
import { SwitchableEmbedder, type Embedder } from '@ams/embeddings';
import {
  completionEstimator,
  createEmbeddingQueue,
  EmbeddingWorker,
  enqueueEmbedding,
  ingestionPolicy,
  reembedRunner,
  workerSettings,
  type ModelLoader,
  type ReembedRunner,
} from '@ams/ingestion';
import type { EmbeddingJob, JobQueue } from '@ams/jobs';
import { MemoryLifecycleSweep, type IngestionPort } from '@ams/memories';
import { embeddingBatchMetrics } from '@ams/metrics';
import type { ApiMetrics } from './api-metrics';
import type { RedisConnection } from './redis';

/** Batches in flight get this long to finish when the API stops (inside its shutdown grace). */
const DRAIN_MS = 5_000;

export interface Ingestion extends IngestionPort {
  /** Follows the active model; in embedded mode also runs re-embed runs. Absent without a model loader. */
  reembedRunner?: ReembedRunner;
  close(): Promise<void>;
}

/**
 * With queues (config.queueUrl: REDIS_URL beside DATABASE_URL): one `embedding` job per memory for the worker processes (job id =
 * memory id), or null while Redis is away, so the request embeds inline. Without queues: the worker
 * runs in this process, woken directly and polling the database; its job id is the memory id too.
 * With `metrics`, that in-process worker counts its batches there (worker processes serve their own).
 */
export function createIngestion(
  config: Config,
  deps: {
    db: Database;
    logger: Logger;
    embedder: Embedder;
    redis?: RedisConnection;
    webhookDispatch?: (accountId: string, ids: string[]) => void;
    metrics?: ApiMetrics;
    models?: ModelLoader;
  },
): Ingestion {
  // Re-embed runs go to the worker processes when there are queues; this process only follows the model.
  const runner =
    deps.models && deps.embedder instanceof SwitchableEmbedder
      ? reembedRunner(config, { db: deps.db.knex, logger: deps.logger, models: deps.models, embedder: deps.embedder }, !config.queueUrl)
      : undefined;
  runner?.start();
  const estimator = completionEstimator(deps.db.knex, config.embeddingWorker);
  const estimateSeconds = () => estimator.seconds();
  if (config.queueUrl) {
    const redisUrl = config.queueUrl;
    // Made on first use while Redis is up: Bee-Queue made while Redis is away keeps reconnecting forever.
    let queue: JobQueue<EmbeddingJob> | undefined;
    return {
      submit: async (accountId, memoryId) => {
        if (!deps.redis?.isReady()) return null;
        queue ??= createEmbeddingQueue({ redisUrl, prefix: config.redisKeyPrefix, logger: deps.logger, isWorker: false });
        if (!queue.canTakeJobs()) return null;
        // The row is committed, so the ack does not wait for Redis: a job it fails to take after all
        // (enqueue logs it) is claimed by the workers' sweep of pending rows (EMBEDDING_RECONCILE_INTERVAL_MS).
        void enqueueEmbedding(queue, accountId, memoryId);
        return memoryId;
      },
      estimateSeconds,
      reembedRunner: runner,
      close: async () => {
        await runner?.stop();
        await queue?.close(1_000);
      },
    };
  }
  const worker = new EmbeddingWorker(
    { db: deps.db.knex, embedder: deps.embedder, logger: deps.logger, ...ingestionPolicy(config), onDeliveries: deps.webhookDispatch },
    workerSettings(config),
    deps.metrics ? embeddingBatchMetrics(deps.metrics.registry) : undefined,
  );
  worker.start();
  // Expiry and history retention run where the worker's reconciler does (the worker processes with queues).
  const lifecycle = new MemoryLifecycleSweep({ db: deps.db.knex, logger: deps.logger, dispatch: deps.webhookDispatch }, config.memoryLifecycle);
  lifecycle.start();
  return {
    submit: async (_accountId, memoryId) => {
      worker.notify();
      return memoryId;
    },
    estimateSeconds,
    reembedRunner: runner,
    close: async () => {
      await runner?.stop();
      await lifecycle.stop();
      await worker.stop(DRAIN_MS);
    },
  };
}
