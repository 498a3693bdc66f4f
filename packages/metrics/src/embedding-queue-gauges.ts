import type { Registry } from 'prom-client';
import { embeddingQueueRepository, type Knex } from '@ams/db';
import { backlogGauges } from './backlog-gauges';

/**
 * The embedding queue as the database sees it, read at scrape time: the same figures from the API
 * and from every worker (two index-only queries).
 */
export function embeddingQueueGauges(registry: Registry, db: Knex): void {
  backlogGauges(registry, {
    depth: {
      name: 'ams_embedding_queue_depth',
      help: 'Memories waiting for an embedding across all workers, by status (pending, processing); counted up to 100000.',
      read: () => embeddingQueueRepository.waiting(db),
    },
    oldest: {
      name: 'ams_embedding_queue_oldest_pending_age_seconds',
      help: 'How long the memory waiting longest for an embedding has waited since it was queued (0: none waiting).',
      read: () => embeddingQueueRepository.oldestPendingAgeSeconds(db),
    },
  });
}
