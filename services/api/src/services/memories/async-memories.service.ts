import { ApiError, toUnixSeconds } from '@ams/core';
import { embeddingQueueRepository, memoriesRepository, MemoryRow } from '@ams/db';
import { embedBatch } from '@ams/ingestion';
import type { AppContext, AuthContext } from '../../context';
import type { CreateMemoryV2Body } from '../../routes/memories/memories.schemas';
import { prepareNewMemory, storeMemory } from './memories.service';

/** Stuck-claim timeout for the in-request path: this request is the only one working on the row. */
const INLINE_STUCK_MS = 0;

export function presentStatus(row: MemoryRow) {
  return {
    id: row.id,
    status: row.embedding_status,
    created_at: toUnixSeconds(row.created_at)!,
    updated_at: toUnixSeconds(row.updated_at)!,
    error: row.embedding_error,
  };
}

/** Waiting work over the recent completion rate (at least 1 a second), rounded up, at least 1 s. */
async function estimateSeconds(ctx: AppContext): Promise<number> {
  const { waiting, completedLastMinute } = await embeddingQueueRepository.backlog(ctx.db.knex);
  const perSecond = Math.max(1, completedLastMinute / 60);
  return Math.max(1, Math.ceil(waiting / perSecond));
}

/** Embeds one pending memory inside the request, through the same code the worker runs. */
async function embedInline(ctx: AppContext, id: string): Promise<void> {
  const claimed = await embeddingQueueRepository.claim(ctx.db.knex, 1, INLINE_STUCK_MS, [id]);
  await embedBatch(
    { db: ctx.db.knex, embedder: ctx.embedder, logger: ctx.logger, maxAttempts: ctx.config.embeddingWorker.maxAttempts, onDeliveries: ctx.webhookDispatch },
    claimed,
  );
}

/**
 * v2 create: stored at once (fetchable, not yet searchable), embedded by the worker. When no queue
 * can take the job, the embedding happens here and the memory is ready on return (job_id null).
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
  if (jobId === null) await embedInline(ctx, row.id);
  const current = (await memoriesRepository.findAny(ctx.db.knex, auth.accountId, row.id))!;
  return {
    id: row.id,
    status: current.embedding_status,
    job_id: jobId,
    estimated_completion_seconds: jobId === null ? 0 : await estimateSeconds(ctx),
  };
}

async function requireOwnMemory(ctx: AppContext, auth: AuthContext, id: string): Promise<MemoryRow> {
  const row = await memoriesRepository.findAny(ctx.db.knex, auth.accountId, id);
  if (!row || (auth.agentId && row.agent_id !== auth.agentId)) throw ApiError.notFound('Memory');
  return row;
}

/** Answers for v1 memories too (ready), and for a v2 memory set aside as a duplicate. */
export async function memoryStatus(ctx: AppContext, auth: AuthContext, id: string) {
  return presentStatus(await requireOwnMemory(ctx, auth, id));
}

/** A failed embedding starts over with fresh attempts. */
export async function retryEmbedding(ctx: AppContext, auth: AuthContext, id: string) {
  const current = await requireOwnMemory(ctx, auth, id);
  const row = await embeddingQueueRepository.retry(ctx.db.knex, auth.accountId, id);
  if (!row) throw ApiError.conflict(`Only a failed embedding can be retried; this one is ${current.embedding_status}`);
  const jobId = ctx.ingestion ? await ctx.ingestion.submit(auth.accountId, id) : null;
  if (jobId === null) await embedInline(ctx, id);
  return presentStatus((await memoriesRepository.findAny(ctx.db.knex, auth.accountId, id))!);
}
