import http from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { embeddingBatchesRepository, embeddingQueueRepository, type Knex } from '@ams/db';
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
  new Gauge({
    name: 'ams_embedding_queue_depth',
    help: 'Memories waiting for an embedding across all workers, by status (pending, processing); counted up to 100000.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const waiting = await embeddingQueueRepository.waiting(db);
      this.set({ status: 'pending' }, waiting.pending);
      this.set({ status: 'processing' }, waiting.processing);
    },
  });
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

/** GET /metrics in Prometheus text format; anything else is 404. */
export function serveMetrics(registry: Registry, port: number, host: string): http.Server {
  return http
    .createServer((req, res) => {
      if (req.method !== 'GET' || req.url !== '/metrics') return void res.writeHead(404).end();
      registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
        (err: Error) => res.writeHead(503, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${err.message}\n`),
      );
    })
    .listen(port, host);
}
