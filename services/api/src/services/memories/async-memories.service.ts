import { ApiError, toUnixSeconds } from '@ams/core';
import { embeddingQueueRepository, memoriesRepository, MemoryRow } from '@ams/db';
import type { AppContext, AuthContext } from '../../context';
import type { CreateMemoryV2Body } from '../../routes/memories/memories.schemas';
import { handOffEmbedding } from './embedding-handoff';
import { requireVisibleMemory } from './memory-scope';
import { prepareNewMemory, storeMemory } from './memories.service';

export function presentStatus(row: MemoryRow) {
  return {
    id: row.id,
    status: row.embedding_status,
    created_at: toUnixSeconds(row.created_at)!,
    updated_at: toUnixSeconds(row.updated_at)!,
    error: row.embedding_error,
    duplicate_of: row.duplicate_of,
    model: row.embedding_model,
  };
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
  const handoff = await handOffEmbedding(ctx, auth.accountId, row.id);
  return handoff.jobId === null
    ? { id: row.id, status: handoff.row.embedding_status, job_id: null, estimated_completion_seconds: 0 }
    : { id: row.id, status: row.embedding_status, job_id: handoff.jobId, estimated_completion_seconds: handoff.estimatedSeconds };
}

/** A deleted memory is gone, but for a v2 create set aside as a duplicate: its status says of what. */
async function requireStatusRow(ctx: AppContext, auth: AuthContext, id: string): Promise<MemoryRow> {
  const row = requireVisibleMemory(auth, await memoriesRepository.findAny(ctx.db.knex, auth.accountId, id));
  if (row.deleted_at && !row.duplicate_of) throw ApiError.notFound('Memory');
  return row;
}

/** Answers for v1 memories too (always ready). */
export async function memoryStatus(ctx: AppContext, auth: AuthContext, id: string) {
  return presentStatus(await requireStatusRow(ctx, auth, id));
}

/** A failed embedding starts over with a fresh budget of attempts: queued again, or embedded here without a queue. */
export async function retryEmbedding(ctx: AppContext, auth: AuthContext, id: string) {
  const current = await requireStatusRow(ctx, auth, id);
  const row = current.deleted_at ? undefined : await embeddingQueueRepository.requeue(ctx.db.knex, auth.accountId, id, 'failed');
  if (!row) throw ApiError.conflict(`Only a failed embedding can be retried; this memory's is ${current.embedding_status}`);
  const handoff = await handOffEmbedding(ctx, auth.accountId, id);
  return presentStatus(handoff.jobId === null ? handoff.row : row);
}
