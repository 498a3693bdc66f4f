import { embeddingBatchesRepository, embeddingQueueRepository, memoryStatusCountsRepository } from '@ams/db';
import { busyRate } from '@ams/ingestion';
import type { AuthContext, VectorDeps } from './deps';

/**
 * The ingestion picture for the console's operations page: the caller's memories by embedding
 * status, and the service-wide backlog with the workers' measured rate (the same figures behind
 * v2's estimated_completion_seconds; counts only, no other account's data).
 */
export async function ingestionStatus(deps: VectorDeps, auth: AuthContext) {
  const [account, waiting, batches] = await Promise.all([
    memoryStatusCountsRepository.byEmbeddingStatus(deps.db, auth.accountId),
    embeddingQueueRepository.waiting(deps.db),
    embeddingBatchesRepository.recent(deps.db),
  ]);
  const rate = busyRate(batches);
  const backlog = waiting.pending + waiting.processing;
  return {
    object: 'ingestion_status' as const,
    memories: account,
    backlog: { pending: waiting.pending, processing: waiting.processing },
    rate_per_second: rate === null ? null : Math.round(rate * 100) / 100,
    batches_last_minute: batches.length,
    estimated_drain_seconds: rate === null || backlog === 0 ? null : Math.ceil(backlog / rate),
    embedder: { provider: deps.embedder.provider, model: deps.embedder.model },
  };
}
