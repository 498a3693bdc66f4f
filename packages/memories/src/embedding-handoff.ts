import { embeddingQueueRepository, memoriesRepository, MemoryRow } from '@ams/db';
import { embedBatch, ingestionPolicy } from '@ams/ingestion';
import type { AppContext } from '../../context';

/** How long an in-request embedding waits for a worker that claimed the same memory first. */
const INLINE_WAIT_MS = 10_000;

export type Handoff = { jobId: string; estimatedSeconds: number } | { jobId: null; row: MemoryRow };

/**
 * A pending memory goes to the embedding worker (a job, with the estimated wait); when no queue
 * takes it, it is embedded here, and the row as it then stands is returned.
 */
export async function handOffEmbedding(ctx: AppContext, accountId: string, id: string): Promise<Handoff> {
  const jobId = ctx.ingestion ? await ctx.ingestion.submit(accountId, id) : null;
  if (jobId === null) return { jobId, row: await embedInline(ctx, accountId, id) };
  const estimatedSeconds = await ctx.ingestion!.estimateSeconds().catch((err: Error) => {
    ctx.logger.warn('could not estimate the embedding wait', { error: err.message });
    return 1;
  });
  return { jobId, estimatedSeconds };
}

/**
 * Embeds one memory through the code the worker runs. A worker may have claimed it first (its
 * sweep runs even while Redis is away): then this waits for that worker's outcome. If the database
 * fails midway the claim is handed back, so a worker takes the memory over; the memory was
 * stored either way, so the request still answers with its status.
 */
async function embedInline(ctx: AppContext, accountId: string, id: string): Promise<MemoryRow> {
  const policy = ingestionPolicy(ctx.config);
  let claimed: MemoryRow[] = [];
  try {
    claimed = await embeddingQueueRepository.claim(ctx.db.knex, { limit: 1, stuckAfterMs: INLINE_WAIT_MS, maxAttempts: policy.maxAttempts, only: { accountId, ids: [id] } });
    await embedBatch({ db: ctx.db.knex, embedder: ctx.embedder, logger: ctx.logger, ...policy, onDeliveries: ctx.webhookDispatch }, claimed);
  } catch (err) {
    ctx.logger.error('in-request embedding failed; a worker will take the memory over', { memory_id: id, error: (err as Error).message });
    await embeddingQueueRepository.release(ctx.db.knex, claimed).catch(() => undefined);
  }
  const deadline = Date.now() + INLINE_WAIT_MS;
  for (;;) {
    const row = (await memoriesRepository.findAny(ctx.db.knex, accountId, id))!;
    if (row.embedding_status !== 'processing' || Date.now() > deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
