import { ApiError } from '@ams/core';
import { embeddingQueueRepository, entitiesRepository, memoriesRepository, MemoryPatch, MemoryRow, NewMemory, PageParams } from '@ams/db';
import { classifyMemoryType } from '@ams/text';
import type { AppContext, AuthContext } from '../../context';
import { recordEvent } from '../../events';
import { handOffEmbedding } from './embedding-handoff';
import type { CreateMemoryBody, ListMemoriesQuery, PatchMemoryBody } from '../../routes/memories/memories.schemas';
import { resolveAgentForRead, resolveAgentForWrite } from '../agents-resolver';
import { embedText } from '../embed-text';
import { linkExtractedEntities, shouldExtract } from './entity-linking';
import { EntityRef, presentMemory, presentMemorySummary } from './memory.presenter';
import { requireVisibleMemory, resolveMemoryScope } from './memory-scope';
import { tierForImportance } from './tiering';

export const eventData = (row: MemoryRow) => ({
  memory_id: row.id,
  agent_id: row.agent_id,
  content: row.content,
  status: row.embedding_status,
});

/** Hands committed deliveries to the dispatcher; the reconciler covers a lost hand-off. */
export function dispatchAfterCommit(ctx: AppContext, accountId: string, deliveryIds: string[]): void {
  if (deliveryIds.length > 0) ctx.webhookDispatch?.(accountId, deliveryIds);
}

async function entitiesOf(ctx: AppContext, accountId: string, rows: MemoryRow[]): Promise<Map<string, EntityRef[]>> {
  return entitiesRepository.entitiesForMemories(
    ctx.db.knex,
    accountId,
    rows.map((r) => r.id),
  );
}

async function requireAgent(ctx: AppContext, auth: AuthContext, input: string | undefined): Promise<string> {
  const agentId = await resolveAgentForWrite(ctx, auth, input);
  if (!agentId) throw ApiError.invalidField('agent_id', 'agent_id is required (or use a key bound to an agent)');
  return agentId;
}

/** Agent, session/project, type and tier of a new memory: the same for v1 and v2 creates. */
export async function prepareNewMemory(ctx: AppContext, auth: AuthContext, body: CreateMemoryBody) {
  const agentId = await requireAgent(ctx, auth, body.agent_id);
  const scope = await resolveMemoryScope(ctx, auth.accountId, body);
  return {
    accountId: auth.accountId,
    agentId,
    content: body.content,
    metadata: body.metadata,
    memoryType: body.memory_type ?? classifyMemoryType(body.content),
    visibility: body.visibility,
    importance: body.importance,
    tier: body.tier ?? tierForImportance(body.importance),
    tierExplicit: body.tier !== undefined,
    ...scope,
  };
}

/** Inserts the memory, links extracted entities and records memory.created, in one transaction. */
export async function storeMemory(ctx: AppContext, memory: NewMemory, autoExtract: boolean | null) {
  const { row, entities, deliveryIds } = await ctx.db.knex.transaction(async (trx) => {
    const [row] = await memoriesRepository.insertMany(trx, [memory]);
    const linked = shouldExtract(autoExtract, memory.content) ? await linkExtractedEntities(trx, memory.accountId, [row!]) : new Map<string, EntityRef[]>();
    const deliveryIds = await recordEvent(trx, memory.accountId, 'memory.created', eventData(row!));
    return { row: row!, entities: linked.get(row!.id) ?? [], deliveryIds };
  });
  dispatchAfterCommit(ctx, memory.accountId, deliveryIds);
  return { row, entities };
}

/**
 * v1 create: embedded in the request, so the memory is searchable when this returns. With
 * `deduplicate`, the agent's nearest live memory at or above the threshold is returned instead.
 */
export async function createMemory(ctx: AppContext, auth: AuthContext, body: CreateMemoryBody) {
  const prepared = await prepareNewMemory(ctx, auth, body);
  const embedding = await embedText(ctx, body.content);
  if (body.deduplicate) {
    const nearest = await memoriesRepository.nearestOfAgent(ctx.db.knex, auth.accountId, prepared.agentId, embedding, ctx.embedder.model);
    const existing = nearest && nearest.similarity >= body.dedup_threshold ? await memoriesRepository.findLive(ctx.db.knex, auth.accountId, nearest.id) : undefined;
    if (existing) {
      const entities = await entitiesOf(ctx, auth.accountId, [existing]);
      return { status: 200, memory: presentMemory(existing, entities.get(existing.id) ?? [], { is_duplicate: true }) };
    }
  }
  const { row, entities } = await storeMemory(
    ctx,
    { ...prepared, embedding, embeddingModel: ctx.embedder.model, embeddingStatus: 'ready' },
    body.auto_extract_entities,
  );
  return { status: 201, memory: presentMemory(row, entities, { is_duplicate: false }) };
}

export async function getMemory(ctx: AppContext, auth: AuthContext, id: string) {
  const row = await requireOwnLiveMemory(ctx, auth, id);
  const entities = await entitiesOf(ctx, auth.accountId, [row]);
  return presentMemory(row, entities.get(row.id) ?? []);
}

export async function listMemories(
  ctx: AppContext,
  auth: AuthContext,
  query: Omit<ListMemoriesQuery, keyof PageParams> & PageParams,
) {
  const agent = await resolveAgentForRead(ctx, auth, query.agent_id);
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
  };
  const page = await memoriesRepository.list(ctx.db.knex, auth.accountId, filters, query);
  const entities = await entitiesOf(ctx, auth.accountId, page.rows);
  return { ...page, data: page.rows.map((r) => presentMemorySummary(r, entities.get(r.id) ?? [])) };
}

async function requireOwnLiveMemory(ctx: AppContext, auth: AuthContext, id: string): Promise<MemoryRow> {
  return requireVisibleMemory(auth, await memoriesRepository.findLive(ctx.db.knex, auth.accountId, id));
}

/**
 * A content change is re-embedded in the request; importance re-tiers unless a tier was set. A v2
 * memory whose embedding is not ready yet (or failed) goes back to the worker instead, so its
 * dedup check, embedding.completed and webhook_url notification still happen, for the new content.
 */
export async function patchMemory(ctx: AppContext, auth: AuthContext, id: string, body: PatchMemoryBody) {
  const current = await requireOwnLiveMemory(ctx, auth, id);
  const patch: MemoryPatch = {
    metadata: body.metadata,
    memoryType: body.memory_type,
    visibility: body.visibility,
    archived: body.archived,
  };
  const contentChanged = body.content !== undefined && body.content !== current.content;
  const requeue = contentChanged && current.embedding_status !== 'ready';
  if (contentChanged) {
    patch.content = body.content;
    if (!requeue) Object.assign(patch, { embedding: await embedText(ctx, body.content!), embeddingModel: ctx.embedder.model });
  }
  if (body.tier !== undefined) Object.assign(patch, { tier: body.tier, tierExplicit: true });
  if (body.importance !== undefined) {
    patch.importance = body.importance;
    if (body.tier === undefined && !current.tier_explicit) patch.tier = tierForImportance(body.importance);
  }
  const changes = Object.keys(body);
  const { row, deliveryIds } = await ctx.db.knex.transaction(async (trx) => {
    const updated = await memoriesRepository.update(trx, auth.accountId, id, patch);
    const row = updated && requeue ? await embeddingQueueRepository.requeue(trx, auth.accountId, id) : updated;
    if (!row) throw ApiError.notFound('Memory');
    const deliveryIds = await recordEvent(trx, auth.accountId, 'memory.updated', { ...eventData(row), changes });
    return { row, deliveryIds };
  });
  dispatchAfterCommit(ctx, auth.accountId, deliveryIds);
  if (requeue) await handOffEmbedding(ctx, auth.accountId, id);
  const entities = await entitiesOf(ctx, auth.accountId, [row]);
  return presentMemory(row, entities.get(row.id) ?? []);
}

export async function deleteMemory(ctx: AppContext, auth: AuthContext, id: string): Promise<void> {
  await requireOwnLiveMemory(ctx, auth, id);
  const deliveryIds = await ctx.db.knex.transaction(async (trx) => {
    const row = await memoriesRepository.softDelete(trx, auth.accountId, id);
    if (!row) throw ApiError.notFound('Memory');
    return recordEvent(trx, auth.accountId, 'memory.deleted', {
      ...eventData(row),
      deleted_at: row.deleted_at?.toISOString() ?? null,
    });
  });
  dispatchAfterCommit(ctx, auth.accountId, deliveryIds);
}

/** Undeletes a soft-deleted memory; restoring a live one is a no-op that returns it. */
export async function restoreMemory(ctx: AppContext, auth: AuthContext, id: string) {
  const row = requireVisibleMemory(auth, await memoriesRepository.findAny(ctx.db.knex, auth.accountId, id));
  const restored = row.deleted_at ? await memoriesRepository.restore(ctx.db.knex, auth.accountId, id) : row;
  if (!restored) throw ApiError.notFound('Memory');
  const entities = await entitiesOf(ctx, auth.accountId, [restored]);
  return presentMemory(restored, entities.get(restored.id) ?? []);
}

export { presentMemory, presentMemorySummary };
