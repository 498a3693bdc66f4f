import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { embeddingBatchesRepository, type Knex } from '@ams/db';
import { embeddingBatchMetrics } from './embedding-batch-metrics';
import { embeddingQueueGauges } from './embedding-queue-gauges';
import { BatchResult, busyRate, EmbeddingWorker } from '@ams/ingestion';

export interface WorkerMetrics {
  registry: Registry;
  /** Pass as the worker's onBatch. */
  observeBatch(r: BatchResult): void;
}

/**
 * Prometheus metrics of one worker process: its own job counts and batch timings, plus the queue
 * as the database sees it (every worker's backlog and measured rate), read at scrape time.
 */
export function workerMetrics(db: Knex, worker: () => EmbeddingWorker | undefined): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'ams_embedding_worker_' });
  new Gauge({
    name: 'ams_embedding_batches_in_flight',
    help: 'Batches this process is embedding now.',
    registers: [registry],
    collect() {
      this.set(worker()?.inFlight ?? 0);
    },
  });
  embeddingQueueGauges(registry, db);
  new Gauge({
    name: 'ams_embedding_throughput_per_second',
    help: 'Memories per second the workers embed while busy, last minute, all workers (0 without data).',
    registers: [registry],
    async collect() {
      this.set(busyRate(await embeddingBatchesRepository.recent(db)) ?? 0);
    },
  });
  return { registry, observeBatch: embeddingBatchMetrics(registry) };
}
