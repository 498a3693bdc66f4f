import { ApiError, toUnixSeconds } from '@ams/core';
import { embeddingBatchesRepository, embeddingQueueRepository, memoriesRepository, MemoryRow } from '@ams/db';
import { embedBatch, ingestionPolicy } from '@ams/ingestion';
import type { AppContext, AuthContext } from '../../context';
import type { CreateMemoryV2Body } from '../../routes/memories/memories.schemas';
import { prepareNewMemory, storeMemory } from './memories.service';

/** How long an inline embedding waits for a worker that claimed the same memory first. */
const INLINE_WAIT_MS = 10_000;

export function presentStatus(row: MemoryRow) {
  return {
    id: row.id,
    status: row.embedding_status,
    created_at: toUnixSeconds(row.created_at)!,
    updated_at: toUnixSeconds(row.updated_at)!,
    error: row.embedding_error,
    duplicate_of: row.duplicate_of,
  };
}

/**
 * Seconds until a memory queued now is ready: the backlog ahead of it over the measured rate
 * (memories per second of model time, all workers, last minute), plus one batch wait. Without a
 * measurement (no worker embedded anything lately) it assumes one full batch a second.
 */
async function estimateSeconds(ctx: AppContext): Promise<number> {
  const { pending, processing } = await embeddingQueueRepository.waiting(ctx.db.knex);
  const { perSecond } = await embeddingBatchesRepository.throughput(ctx.db.knex);
  const rate = perSecond ?? ctx.config.embeddingWorker.batchSize;
  return Math.max(1, Math.ceil(ctx.config.embeddingWorker.batchWaitMs / 1000 + (pending + processing) / rate));
}

const ingestionDeps = (ctx: AppContext) => ({
  db: ctx.db.knex,
  embedder: ctx.embedder,
  logger: ctx.logger,
  ...ingestionPolicy(ctx.config),
  onDeliveries: ctx.webhookDispatch,
});

/**
 * Embeds one memory inside the request, through the code the worker runs. If a worker claimed it
 * first (a sweep can, even while Redis is away), waits for that worker's outcome instead.
 */
async function embedInline(ctx: AppContext, accountId: string, id: string): Promise<MemoryRow> {
  const claimed = await embeddingQueueRepository.claim(ctx.db.knex, { limit: 1, stuckAfterMs: INLINE_WAIT_MS, maxAttempts: ctx.config.embeddingWorker.maxAttempts, ids: [id] });
  await embedBatch(ingestionDeps(ctx), claimed);
  const deadline = Date.now() + INLINE_WAIT_MS;
  for (;;) {
    const row = (await memoriesRepository.findAny(ctx.db.knex, accountId, id))!;
    if (row.embedding_status !== 'processing' || Date.now() > deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * v2 create: stored at once (fetchable, not yet searchable) and handed to the embedding worker.
 * When no queue can take the job, the embedding happens here and the memory is ready on return
 * (job_id null). Dedup, when asked for, is checked by whoever embeds it.
 */
export async function createMemoryAsync(ctx: AppContext, auth: AuthContext, body: CreateMemoryV2Body) {
  const prepared = await prepareNewMemory(ctx, auth, body);
  const { row } = await storeMemory(
    ctx,
    {
      ...prepared,
      embedding: null,
      embeddingModel: null,
      embeddingStatus: 'pending',
      dedupThreshold: body.deduplicate ? body.dedup_threshold : null,
      webhookUrl: body.webhook_url ?? null,
    },
    body.auto_extract_entities,
  );
  const jobId = ctx.ingestion ? await ctx.ingestion.submit(auth.accountId, row.id) : null;
  if (jobId === null) {
    const settled = await embedInline(ctx, auth.accountId, row.id);
    return { id: row.id, status: settled.embedding_status, job_id: null, estimated_completion_seconds: 0 };
  }
  return { id: row.id, status: row.embedding_status, job_id: jobId, estimated_completion_seconds: await estimateSeconds(ctx) };
}

/** A deleted memory is gone, but for a v2 create set aside as a duplicate: its status says of what. */
async function requireStatusRow(ctx: AppContext, auth: AuthContext, id: string): Promise<MemoryRow> {
  const row = await memoriesRepository.findAny(ctx.db.knex, auth.accountId, id);
  if (!row || (row.deleted_at && !row.duplicate_of) || (auth.agentId && row.agent_id !== auth.agentId)) throw ApiError.notFound('Memory');
  return row;
}

/** Answers for v1 memories too (always ready). */
export async function memoryStatus(ctx: AppContext, auth: AuthContext, id: string) {
  return presentStatus(await requireStatusRow(ctx, auth, id));
}

/** A failed embedding starts over with fresh attempts: queued again, or embedded here without a queue. */
export async function retryEmbedding(ctx: AppContext, auth: AuthContext, id: string) {
  const current = await requireStatusRow(ctx, auth, id);
  const row = current.deleted_at ? undefined : await embeddingQueueRepository.retry(ctx.db.knex, auth.accountId, id);
  if (!row) throw ApiError.conflict(`Only a failed embedding can be retried; this memory's is ${current.embedding_status}`);
  const jobId = ctx.ingestion ? await ctx.ingestion.submit(auth.accountId, id) : null;
  return presentStatus(jobId === null ? await embedInline(ctx, auth.accountId, id) : row);
}
