import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { embeddingBatchesRepository, type Knex } from '@ams/db';
import { embeddingQueueGauges } from '@ams/metrics';
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
  const memories = new Counter({
    name: 'ams_embedding_memories_total',
    help: 'Memories this process settled, by outcome (ready, duplicate, failed, retrying, lost).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const batchSeconds = new Histogram({
    name: 'ams_embedding_batch_duration_seconds',
    help: 'Wall time of one batch: model call plus storing each result.',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const batchSize = new Histogram({
    name: 'ams_embedding_batch_size',
    help: 'Memories per model call.',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [registry],
  });
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
  return {
    registry,
    observeBatch(r) {
      memories.inc({ outcome: 'ready' }, r.ready);
      memories.inc({ outcome: 'duplicate' }, r.duplicates);
      memories.inc({ outcome: 'failed' }, r.failed);
      memories.inc({ outcome: 'retrying' }, r.retrying);
      memories.inc({ outcome: 'lost' }, r.lost);
      batchSeconds.observe(r.durationMs / 1000);
      batchSize.observe(r.size);
    },
  };
}
