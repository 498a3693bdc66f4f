import { Gauge, type Registry } from 'prom-client';
import { embeddingQueueRepository, type Knex } from '@ams/db';

/**
 * The embedding queue as the database sees it, read at scrape time: the same figures from the API
 * and from every worker (two index-only queries).
 */
export function embeddingQueueGauges(registry: Registry, db: Knex): void {
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
    name: 'ams_embedding_queue_oldest_pending_age_seconds',
    help: 'How long the memory waiting longest for an embedding has waited since it was queued (0: none waiting).',
    registers: [registry],
    async collect() {
      this.set(await embeddingQueueRepository.oldestPendingAgeSeconds(db));
    },
  });
}
