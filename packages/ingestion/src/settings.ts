import os from 'node:os';
import type { Config } from '@ams/core';
import type { IngestionDeps } from './embed-batch';
import type { WorkerSettings } from './embedding-worker';

export const workerSettings = (config: Config): WorkerSettings => ({
  concurrency: config.embeddingWorker.concurrency,
  batchSize: config.embeddingWorker.batchSize,
  batchWaitMs: config.embeddingWorker.batchWaitMs,
  stuckAfterMs: config.embeddingWorker.stuckAfterMs,
  reconcileIntervalMs: config.embeddingWorker.reconcileIntervalMs,
});

/** The retry and timeout policy and this process's name, for IngestionDeps. */
export const ingestionPolicy = (config: Config): Pick<IngestionDeps, 'maxAttempts' | 'retryBaseMs' | 'batchTimeoutMs' | 'workerId'> => ({
  maxAttempts: config.embeddingWorker.maxAttempts,
  retryBaseMs: config.embeddingWorker.retryBaseMs,
  batchTimeoutMs: config.embeddingWorker.batchTimeoutMs,
  workerId: `${os.hostname()}:${process.pid}`,
});
