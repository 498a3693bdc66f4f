import { alongside, ApiError, toUnixSeconds } from '@ams/core';
import { Db, embeddingQueueRepository, memoriesRepository, MemoryRow, NewMemory } from '@ams/db';
import type { Caller, MemoryDeps } from './deps';
import { withLiveAgents } from './agent-ref';
import { handOffEmbedding } from './embedding-handoff';
import { actorOf } from './history';
import type { CreateMemoryV2Input } from './inputs';
import { requireVisibleMemory } from './memory-scope';
import { prepareNewMemory } from './prepare-memory';
import { planMemories, storeMemories } from './store-memories';
import { storeSuperseding } from './supersede';

function presentStatus(row: MemoryRow) {
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
export async function createMemoryAsync(deps: MemoryDeps, caller: Caller, input: CreateMemoryV2Input) {
  // The agent may come from the process's cache: the INSERT checks it is live, and runs again with it looked up if not.
  const row = await withLiveAgents(deps.db, caller.accountId, () => storePending(deps, caller, input));
  const handoff = await handOffEmbedding(deps, caller.accountId, row.id);
  return handoff.jobId === null
    ? { id: row.id, status: handoff.row.embedding_status, job_id: null, estimated_completion_seconds: 0 }
    : { id: row.id, status: row.embedding_status, job_id: handoff.jobId, estimated_completion_seconds: handoff.estimatedSeconds };
}

/** A v2 create's references and its one statement. */
async function storePending(deps: MemoryDeps, caller: Caller, input: CreateMemoryV2Input): Promise<MemoryRow> {
  // The entity extraction (CPU) runs while the reference lookups' queries are out.
  const [prepared, plan] = await alongside(prepareNewMemory(deps.db, caller, input), () =>
    planMemories([{ accountId: caller.accountId, content: input.content }], input.auto_extract_entities),
  );
  const memory: NewMemory = {
    ...prepared,
    embedding: null,
    embeddingModel: null,
    embeddingStatus: 'pending',
    dedupThreshold: input.deduplicate ? input.dedup_threshold : null,
    webhookUrl: input.webhook_url ?? null,
  };
  const supersedes = input.supersedes;
  const {
    rows: [row],
  } = supersedes
    ? await storeSuperseding(deps, caller, memory, supersedes, input.auto_extract_entities, plan)
    : await storeMemories(deps, [memory], input.auto_extract_entities, actorOf(caller), plan);
  return row!;
}

/** A deleted memory is gone, but for a v2 create set aside as a duplicate: its status says of what. */
async function requireStatusRow(db: Db, caller: Caller, id: string): Promise<MemoryRow> {
  const row = requireVisibleMemory(caller, await memoriesRepository.findAny(db, caller.accountId, id));
  if (row.deleted_at && !row.duplicate_of) throw ApiError.notFound('Memory');
  return row;
}

/** Answers for v1 memories too (always ready). */
export async function memoryStatus(deps: Pick<MemoryDeps, 'db'>, caller: Caller, id: string) {
  return presentStatus(await requireStatusRow(deps.db, caller, id));
}

/** A failed embedding starts over with a fresh budget of attempts: queued again, or embedded here without a queue. */
export async function retryEmbedding(deps: MemoryDeps, caller: Caller, id: string) {
  const current = await requireStatusRow(deps.db, caller, id);
  const row = current.deleted_at ? undefined : await embeddingQueueRepository.requeue(deps.db, caller.accountId, id, 'failed');
  if (!row) throw ApiError.conflict(`Only a failed embedding can be retried; this memory's is ${current.embedding_status}`);
  const handoff = await handOffEmbedding(deps, caller.accountId, id);
  return presentStatus(handoff.jobId === null ? handoff.row : row);
}
