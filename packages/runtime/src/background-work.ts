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
  retieringLoop,
  workerSettings,
  type BatchResult,
  type ModelLoader,
  type ReembedRunner,
} from '@ams/ingestion';
import type { EmbeddingJob, JobQueue } from '@ams/jobs';
import { MemoryLifecycleSweep, type Dispatch, type IngestionPort } from '@ams/memories';
import { DRAIN_MS } from './drain';
import type { RedisConnection } from './redis';

/** What a process runs beside its requests or its queue; `close` drains it (up to DRAIN_MS). */
export interface Work {
  close(): Promise<void>;
}

interface Ingestion extends IngestionPort, Work {
  /** Follows the active model; where it takes runs, also runs re-embed runs. */
  reembedRunner?: ReembedRunner;
}

export interface WorkDeps {
  db: Database;
  logger: Logger;
  embedder: Embedder;
  models?: ModelLoader;
  dispatch?: Dispatch;
}

/**
 * A memory's periodic upkeep, where the embedding worker runs: expiry and history retention, and the
 * scheduled re-tiering (docs/api.md, "Expiry" and "Re-tiering"); their events go out through `dispatch`.
 */
function memoryUpkeep(config: Config, deps: Pick<WorkDeps, 'db' | 'logger' | 'dispatch'>): Work {
  const lifecycle = new MemoryLifecycleSweep({ db: deps.db.knex, logger: deps.logger, dispatch: deps.dispatch }, config.memoryLifecycle);
  const retiering = retieringLoop(config, { db: deps.db.knex, logger: deps.logger, dispatch: deps.dispatch });
  lifecycle.start();
  retiering.start();
  return { close: async () => void (await Promise.all([lifecycle.stop(), retiering.stop(DRAIN_MS)])) };
}

/** The re-embed runner over a switchable embedder: takes runs where `takesRuns`, else only follows the active model. */
function modelRunner(config: Config, deps: WorkDeps, takesRuns: boolean): ReembedRunner | undefined {
  if (!deps.models || !(deps.embedder instanceof SwitchableEmbedder)) return undefined;
  const runner = reembedRunner(config, { db: deps.db.knex, logger: deps.logger, models: deps.models, embedder: deps.embedder }, takesRuns);
  runner.start();
  return runner;
}

/** The embedding worker over `deps`, reporting each batch to `onBatch`. */
function embeddingWorker(config: Config, deps: WorkDeps, onBatch?: (batch: BatchResult) => void): EmbeddingWorker {
  const worker = new EmbeddingWorker(
    { db: deps.db.knex, embedder: deps.embedder, logger: deps.logger, ...ingestionPolicy(config), onDeliveries: deps.dispatch },
    workerSettings(config),
    onBatch,
  );
  worker.start();
  return worker;
}

/**
 * The API's front door to embedding. With queues: one `embedding` job per memory for the worker
 * processes (job id = memory id), or null while Redis is away, so the request embeds inline.
 * Without: the worker and the memory upkeep run in this process, the worker woken directly and
 * polling the database.
 */
export function apiIngestion(config: Config, deps: WorkDeps & { redis?: RedisConnection; onBatch?: (batch: BatchResult) => void }): Ingestion {
  const runner = modelRunner(config, deps, !config.queueUrl);
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
  const worker = embeddingWorker(config, deps, deps.onBatch);
  const upkeep = memoryUpkeep(config, deps);
  return {
    submit: async (_accountId, memoryId) => {
      worker.notify();
      return memoryId;
    },
    estimateSeconds,
    reembedRunner: runner,
    close: async () => {
      await runner?.stop();
      await Promise.all([upkeep.close(), worker.stop(DRAIN_MS)]);
    },
  };
}

/**
 * The embedding worker process's work: `embedding` jobs wake the worker, which claims pending
 * memories in batches; re-embed runs and the memory upkeep run beside it.
 */
export function queuedEmbedding(config: Config & { queueUrl: string }, deps: WorkDeps & { onBatch: (batch: BatchResult) => void }): Work & { worker: EmbeddingWorker } {
  const worker = embeddingWorker(config, deps, deps.onBatch);
  const queue = createEmbeddingQueue({ redisUrl: config.queueUrl, prefix: config.redisKeyPrefix, logger: deps.logger, isWorker: true });
  // A job only says "work is waiting": the batch claims the rows. Enough concurrency that a whole
  // batch's jobs are taken at once and share the batch wait.
  queue.process(config.embeddingWorker.concurrency * config.embeddingWorker.batchSize, async () => worker.notify());
  const runner = modelRunner(config, deps, true);
  const upkeep = memoryUpkeep(config, deps);
  return {
    worker,
    async close() {
      deps.logger.info('draining', { batches_in_flight: worker.inFlight });
      // The queue stops taking jobs at once (its handler returns at once, so nothing waits there).
      await Promise.all([queue.close(1_000), worker.stop(DRAIN_MS), runner?.stop(), upkeep.close()]);
    },
  };
}
