import { embeddingQueueRepository, memoriesRepository, MemoryRow } from '@ams/db';
import { embedBatch, IngestionDeps } from './embed-batch';

/** How long an in-request embedding waits for a worker that claimed the same memory first. */
const INLINE_WAIT_MS = 10_000;

/**
 * Embeds one memory now, through the code the worker runs (a request with no queue to take it). A
 * worker may have claimed it first (its sweep runs even while Redis is away): then this waits for
 * that worker's outcome. If the database fails midway the claim is handed back, so a worker takes
 * the memory over; the memory was stored either way, so the caller still gets its row.
 */
export async function embedNow(deps: IngestionDeps, accountId: string, id: string): Promise<MemoryRow> {
  let claimed: MemoryRow[] = [];
  try {
    claimed = await embeddingQueueRepository.claim(deps.db, { limit: 1, stuckAfterMs: INLINE_WAIT_MS, maxAttempts: deps.maxAttempts, only: { accountId, ids: [id] } });
    await embedBatch(deps, claimed);
  } catch (err) {
    deps.logger.error('in-request embedding failed; a worker will take the memory over', { memory_id: id, error: (err as Error).message });
    await embeddingQueueRepository.release(deps.db, claimed).catch(() => undefined);
  }
  const deadline = Date.now() + INLINE_WAIT_MS;
  for (;;) {
    const row = (await memoriesRepository.findAny(deps.db, accountId, id))!;
    if (row.embedding_status !== 'processing' || Date.now() > deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
