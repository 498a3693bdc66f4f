import { Counter, Histogram, type Registry } from 'prom-client';
import { registered } from './registered';
import type { BatchResult } from '@ams/ingestion';

/**
 * Counts an embedding worker's memories by outcome and times its batches, in `registry`; returns
 * the worker's onBatch. The worker process and the API's in-process worker both use it.
 */
export function embeddingBatchMetrics(registry: Registry): (r: BatchResult) => void {
  const memories = registered(registry, 'ams_embedding_memories_total', () =>
    new Counter({
      name: 'ams_embedding_memories_total',
      help: 'Memories this process settled, by outcome (ready, duplicate, failed, retrying, lost).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
  );
  const batchSeconds = registered(registry, 'ams_embedding_batch_duration_seconds', () =>
    new Histogram({
      name: 'ams_embedding_batch_duration_seconds',
      help: 'Wall time of one batch: model call plus storing each result.',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  );
  const batchSize = registered(registry, 'ams_embedding_batch_size', () =>
    new Histogram({
      name: 'ams_embedding_batch_size',
      help: 'Memories per model call.',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers: [registry],
    }),
  );
  return (r) => {
    memories.inc({ outcome: 'ready' }, r.ready);
    memories.inc({ outcome: 'duplicate' }, r.duplicates);
    memories.inc({ outcome: 'failed' }, r.failed);
    memories.inc({ outcome: 'retrying' }, r.retrying);
    memories.inc({ outcome: 'lost' }, r.lost);
    batchSeconds.observe(r.durationMs / 1000);
    batchSize.observe(r.size);
  };
}
