import { ApiError, toIso } from '@ams/core';
import { EntityCounts, EntityLinkRow, entitiesRepository, entityLinksRepository, EntityRow, isUniqueViolation, memoriesRepository, PageParams } from '@ams/db';
import { requireVisibleMemory } from '@ams/memories';
import type { Caller, EntityDeps } from './deps';

/** Validated input (the route schema types its body with it). */
export interface CreateEntityInput {
  name: string;
  entity_type: string;
  metadata: Record<string, unknown>;
}

export type PatchEntityInput = Partial<CreateEntityInput>;

export interface LinkInput {
  entity_id: string;
  memory_id: string;
  relationship: string;
  relevance_score: number;
}

const NAME_TAKEN = 'entities_account_type_name_key';

export function presentEntity(row: EntityRow, counts: EntityCounts | undefined) {
  return {
    object: 'entity' as const,
    id: row.id,
    name: row.name,
    entity_type: row.entity_type,
    // The same value under the name several clients read (docs/clients.md, "Additive response members").
    type: row.entity_type,
    metadata: row.metadata,
    memory_count: counts?.memory_count ?? 0,
    relationship_count: counts?.relationship_count ?? 0,
    created_at: toIso(row.created_at)!,
    updated_at: toIso(row.updated_at)!,
  };
}

const nameTaken = () => ApiError.conflict('An entity with this name and type already exists');

async function present(deps: EntityDeps, row: EntityRow) {
  const counts = await entitiesRepository.countsFor(deps.db, row.account_id, [row.id]);
  return presentEntity(row, counts.get(row.id));
}

export async function createEntity(deps: EntityDeps, auth: Caller, body: CreateEntityInput) {
  try {
    const row = await entitiesRepository.insert(deps.db, {
      accountId: auth.accountId,
      name: body.name,
      entityType: body.entity_type,
      metadata: body.metadata,
    });
    return presentEntity(row, undefined);
  } catch (err) {
    if (isUniqueViolation(err, NAME_TAKEN)) throw nameTaken();
    throw err;
  }
}

export async function listEntities(deps: EntityDeps, auth: Caller, query: { entity_type?: string } & PageParams) {
  const page = await entitiesRepository.list(deps.db, auth.accountId, { entityType: query.entity_type }, query);
  const counts = await entitiesRepository.countsFor(deps.db, auth.accountId, page.rows.map((r) => r.id));
  return { ...page, data: page.rows.map((r) => presentEntity(r, counts.get(r.id))) };
}

async function requireEntity(deps: EntityDeps, auth: Caller, id: string): Promise<EntityRow> {
  const row = await entitiesRepository.findLive(deps.db, auth.accountId, id);
  if (!row) throw ApiError.notFound('Entity');
  return row;
}

export async function getEntity(deps: EntityDeps, auth: Caller, id: string) {
  return present(deps, await requireEntity(deps, auth, id));
}

export async function patchEntity(deps: EntityDeps, auth: Caller, id: string, body: PatchEntityInput) {
  await requireEntity(deps, auth, id);
  try {
    const row = await entitiesRepository.update(deps.db, auth.accountId, id, {
      name: body.name,
      entityType: body.entity_type,
      metadata: body.metadata,
    });
    if (!row) throw ApiError.notFound('Entity');
    return present(deps, row);
  } catch (err) {
    if (isUniqueViolation(err, NAME_TAKEN)) throw nameTaken();
    throw err;
  }
}

export async function deleteEntity(deps: EntityDeps, auth: Caller, id: string): Promise<void> {
  if (!(await entitiesRepository.softDelete(deps.db, auth.accountId, id))) throw ApiError.notFound('Entity');
}

function presentLink(row: EntityLinkRow) {
  return {
    entity_id: row.entity_id,
    memory_id: row.memory_id,
    relationship: row.relationship,
    relevance_score: Math.round(Number(row.relevance_score) * 1e4) / 1e4,
    created_at: toIso(row.created_at)!,
  };
}

/** Both ends must be live resources of the account; linking twice returns the first link. */
export async function linkEntity(deps: EntityDeps, auth: Caller, body: LinkInput) {
  await requireEntity(deps, auth, body.entity_id);
  requireVisibleMemory(auth, await memoriesRepository.findLive(deps.db, auth.accountId, body.memory_id));
  const row = await entityLinksRepository.link(deps.db, {
    accountId: auth.accountId,
    entityId: body.entity_id,
    memoryId: body.memory_id,
    relationship: body.relationship,
    relevanceScore: body.relevance_score,
  });
  return presentLink(row);
}
