import type { Config } from '@ams/core';
import type { WorkerSettings } from './embedding-worker';

export const workerSettings = (config: Config): WorkerSettings => ({
  concurrency: config.embeddingWorker.concurrency,
  batchSize: config.embeddingWorker.batchSize,
  batchWaitMs: config.embeddingWorker.batchWaitMs,
  stuckAfterMs: config.embeddingWorker.stuckAfterMs,
  reconcileIntervalMs: config.embeddingWorker.reconcileIntervalMs,
});
