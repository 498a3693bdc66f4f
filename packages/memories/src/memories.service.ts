import { alongside, ApiError } from '@ams/core';
import { agentsRepository, Db, embeddingQueueRepository, entitiesRepository, memoriesRepository, MemoryPatch, MemoryRow } from '@ams/db';
import { embedText } from '@ams/embeddings';
import type { MemoryChange } from '@ams/vocabulary';
import { resolveAgentForRead, withLiveAgents } from './agent-ref';
import { findDuplicate, lockForDedup } from './dedup';
import type { Caller, MemoryDeps } from './deps';
import { handOffEmbedding } from './embedding-handoff';
import { dispatchAfterCommit, memoryEventData, recordEvent } from './events';
import { actorOf, asActor } from './history';
import type { CreateMemoryInput, ListMemoriesInput, PatchMemoryInput } from './inputs';
import { EntityRef, presentMemory, presentMemorySummary } from './memory.presenter';
import { requireVisibleMemory } from './memory-scope';
import { prepareNewMemory } from './prepare-memory';
import { Inserted, insertMemories, planMemories } from './store-memories';
import { insertSuperseding } from './supersede';
import { tierForImportance } from './tiering';

async function entitiesOf(db: Db, accountId: string, rows: MemoryRow[]): Promise<Map<string, EntityRef[]>> {
  return entitiesRepository.entitiesForMemories(
    db,
    accountId,
    rows.map((r) => r.id),
  );
}

/**
 * v1 create: embedded in the request, so the memory is searchable when this returns. With
 * `deduplicate`, the agent's nearest live memory at or above the threshold is returned instead;
 * the check and the insert share one transaction under the agent's dedup lock (see dedup.ts).
 */
export async function createMemory(deps: Pick<MemoryDeps, 'db' | 'embedder' | 'dispatch'>, caller: Caller, input: CreateMemoryInput) {
  // The model runs on its own thread (one ONNX Runtime thread: a core of its own): the reference
  // lookups and the CPU work of the create (its type, its entities) go on meanwhile, not after it.
  const embedding = embedText(deps.embedder, input.content);
  // The agent may come from the process's cache: the INSERT checks it is live, and runs again with it looked up if not.
  const outcome = await withLiveAgents(deps.db, caller.accountId, () => storeCreate(deps, caller, input, embedding));
  if (outcome.existing) {
    const entities = await entitiesOf(deps.db, caller.accountId, [outcome.existing]);
    return { status: 200, memory: presentMemory(outcome.existing, entities.get(outcome.existing.id) ?? [], { is_duplicate: true }) };
  }
  const { rows, entities, deliveries } = outcome.inserted!;
  dispatchAfterCommit(deps.dispatch, deliveries);
  return { status: 201, memory: presentMemory(rows[0]!, entities.get(rows[0]!.id) ?? [], { is_duplicate: false }) };
}

/** A v1 create's references and its statement (or, with dedup, its transaction), once its embedding is in. */
async function storeCreate(
  deps: Pick<MemoryDeps, 'db' | 'embedder'>,
  caller: Caller,
  input: CreateMemoryInput,
  embedded: ReturnType<typeof embedText>,
): Promise<{ existing?: MemoryRow; inserted?: Inserted }> {
  const [[prepared, plan], embedding] = await Promise.all([
    alongside(prepareNewMemory(deps.db, caller, input), () => planMemories([{ accountId: caller.accountId, content: input.content }], input.auto_extract_entities)),
    embedded,
  ]);
  const model = deps.embedder.model;
  const memory = { ...prepared, embedding, embeddingModel: model, embeddingStatus: 'ready' as const };
  // Without dedup the create is one statement after the embed; with it, the check and the insert
  // share a transaction under the agent's lock (see dedup.ts).
  const insert = (db: Db) =>
    input.supersedes
      ? insertSuperseding(db, caller, memory, input.supersedes, input.auto_extract_entities, plan)
      : insertMemories(db, [memory], input.auto_extract_entities, actorOf(caller), plan);
  if (!input.deduplicate && !input.supersedes) return { inserted: await insert(deps.db) };
  return deps.db.transaction(async (trx) => {
    if (!input.deduplicate) return { inserted: await insert(trx) };
    await lockForDedup(trx, [prepared]);
    const duplicateOf = await findDuplicate(trx, prepared, embedding, model, input.dedup_threshold);
    const existing = duplicateOf ? await memoriesRepository.findLive(trx, caller.accountId, duplicateOf) : undefined;
    return existing ? { existing } : { inserted: await insert(trx) };
  });
}

export async function getMemory(deps: Pick<MemoryDeps, 'db'>, caller: Caller, id: string) {
  const row = await requireOwnLiveMemory(deps.db, caller, id);
  const entities = await entitiesOf(deps.db, caller.accountId, [row]);
  return presentMemory(row, entities.get(row.id) ?? []);
}

export async function listMemories(deps: Pick<MemoryDeps, 'db'>, caller: Caller, query: ListMemoriesInput) {
  const agent = await resolveAgentForRead(deps.db, caller, query.agent_id);
  if (agent === 'none') return { hasMore: false, nextCursor: null, totalCount: 0, data: [] };
  const filters = {
    agentId: agent,
    memoryType: query.memory_type,
    tier: query.tier,
    sessionId: query.session_id,
    projectId: query.project_id,
    archived: query.archived,
    visibility: query.visibility,
    embeddingStatus: query.embedding_status,
    includeExpired: query.include_expired,
    expiresBefore: query.expires_before,
  };
  const page = await memoriesRepository.list(deps.db, caller.accountId, filters, query);
  const entities = await entitiesOf(deps.db, caller.accountId, page.rows);
  return { ...page, data: page.rows.map((r) => presentMemorySummary(r, entities.get(r.id) ?? [])) };
}

async function requireOwnLiveMemory(db: Db, caller: Caller, id: string): Promise<MemoryRow> {
  return requireVisibleMemory(caller, await memoriesRepository.findLive(db, caller.accountId, id));
}

/**
 * A content change is re-embedded in the request; importance re-tiers unless a tier was set. A v2
 * memory whose embedding is not ready yet (or failed) goes back to the worker instead, so its
 * dedup check, embedding.completed and webhook_url notification still happen, for the new content.
 */
export async function patchMemory(deps: MemoryDeps, caller: Caller, id: string, input: PatchMemoryInput) {
  const current = await requireOwnLiveMemory(deps.db, caller, id);
  const patch: MemoryPatch = {
    content: input.content,
    metadata: input.metadata,
    memoryType: input.memory_type,
    visibility: input.visibility,
    archived: input.archived,
    expiresAt: input.expires_at,
  };
  if (input.tier !== undefined) Object.assign(patch, { tier: input.tier, tierExplicit: true });
  if (input.tier_pinned !== undefined) patch.tierExplicit = input.tier_pinned;
  Object.assign(patch, validityPatch(current, input));
  if (input.importance !== undefined) {
    patch.importance = input.importance;
    if (input.tier === undefined && !current.tier_explicit) patch.tier = tierForImportance(input.importance);
  }
  return applyMemoryPatch(deps, caller, current, patch, { changes: Object.keys(input) });
}

/**
 * Writes a patch as one new version (a content change re-embedded, or handed back to the worker
 * as patchMemory says), records memory.updated with the version it made, and returns the memory.
 * `change` names the kind of change in the history when it is not a plain update.
 */
export async function applyMemoryPatch(
  deps: MemoryDeps,
  caller: Caller,
  current: MemoryRow,
  input: MemoryPatch,
  event: { changes: string[]; change?: MemoryChange; extra?: Record<string, unknown> },
) {
  const { content, ...rest } = input;
  const patch: MemoryPatch = rest;
  const contentChanged = content !== undefined && content !== current.content;
  const requeue = contentChanged && current.embedding_status !== 'ready';
  if (contentChanged) {
    patch.content = content;
    if (!requeue) Object.assign(patch, { embedding: await embedText(deps.embedder, content), embeddingModel: deps.embedder.model });
  }
  const { row, deliveries } = await asActor(deps.db, actorOf(caller, event.change), async (trx) => {
    const updated = await memoriesRepository.update(trx, caller.accountId, current.id, patch);
    const row = updated && requeue ? await embeddingQueueRepository.requeue(trx, caller.accountId, current.id) : updated;
    if (!row) throw ApiError.notFound('Memory');
    await agentsRepository.markActive(trx, caller.accountId, [row.agent_id]);
    const deliveries = await recordEvent(trx, caller.accountId, 'memory.updated', { ...memoryEventData(row), changes: event.changes, version: row.version, ...event.extra });
    return { row, deliveries };
  });
  dispatchAfterCommit(deps.dispatch, deliveries);
  if (requeue) await handOffEmbedding(deps, caller.accountId, current.id);
  const entities = await entitiesOf(deps.db, caller.accountId, [row]);
  return presentMemory(row, entities.get(row.id) ?? []);
}

/** valid_from / valid_until of a PATCH, checked against what the memory keeps (from must precede until). */
function validityPatch(current: MemoryRow, input: PatchMemoryInput): Pick<MemoryPatch, 'validFrom' | 'validUntil'> {
  const from = input.valid_from ?? current.valid_from;
  const until = input.valid_until ?? current.valid_until;
  if (from && until && from >= until) {
    const field = input.valid_until ? 'valid_until' : 'valid_from';
    throw ApiError.invalidField(field, `valid_from (${from.toISOString()}) must be earlier than valid_until (${until.toISOString()})`);
  }
  return { validFrom: input.valid_from, validUntil: input.valid_until };
}

export async function deleteMemory(deps: Pick<MemoryDeps, 'db' | 'dispatch'>, caller: Caller, id: string): Promise<void> {
  await requireOwnLiveMemory(deps.db, caller, id);
  const deliveries = await asActor(deps.db, actorOf(caller), async (trx) => {
    const row = await memoriesRepository.softDelete(trx, caller.accountId, id);
    if (!row) throw ApiError.notFound('Memory');
    return recordEvent(trx, caller.accountId, 'memory.deleted', {
      ...memoryEventData(row),
      deleted_at: row.deleted_at?.toISOString() ?? null,
      version: row.version,
    });
  });
  dispatchAfterCommit(deps.dispatch, deliveries);
}

/**
 * Undeletes a soft-deleted memory; an expired one, swept or not yet, loses its past expiry.
 * Restoring a live memory is a no-op that returns it.
 */
export async function restoreMemory(deps: Pick<MemoryDeps, 'db'>, caller: Caller, id: string) {
  const row = requireVisibleMemory(caller, await memoriesRepository.findAny(deps.db, caller.accountId, id));
  const expired = row.expires_at !== null && row.expires_at.getTime() <= Date.now();
  const restored = row.deleted_at || expired ? await asActor(deps.db, actorOf(caller, 'restore'), (trx) => memoriesRepository.restore(trx, caller.accountId, id)) : row;
  if (!restored) throw ApiError.notFound('Memory');
  const entities = await entitiesOf(deps.db, caller.accountId, [restored]);
  return presentMemory(restored, entities.get(restored.id) ?? []);
}
