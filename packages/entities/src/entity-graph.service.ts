import { ApiError, toIso, toUnixSeconds } from '@ams/core';
import { entitiesRepository, entityGraphRepository } from '@ams/db';
import type { Caller, EntityDeps } from './deps';
import { presentEntity } from './entities.service';

const NEIGHBOURHOOD_MEMORIES = 20;
/** Two entities linked to the same memory are neighbours; the edge carries this label. */
const CO_OCCURRENCE = 'co_occurs_with';
const GRAPH_LIMIT = 50;
const PREVIEW_CHARS = 280;

/**
 * GET /v1/entities/{id}/neighborhood (docs/clients.md, "Additional endpoints"): the entities reachable within `depth`
 * hops over shared memories (a key bound to an agent walks only that agent's memories), nearest
 * first and capped at `max_neighbors`, plus the entity's own memories.
 */
export async function entityNeighbourhood(deps: EntityDeps, auth: Caller, id: string, q: { depth: number; max_neighbors: number }) {
  const entity = await entitiesRepository.findLive(deps.db, auth.accountId, id);
  if (!entity) throw ApiError.notFound('Entity');
  const scope = { agentId: auth.agentId };
  const [walk, memories] = await Promise.all([
    entityGraphRepository.neighbours(deps.db, auth.accountId, id, { maxDepth: q.depth, limit: q.max_neighbors, ...scope }),
    entityGraphRepository.memoriesOf(deps.db, auth.accountId, id, { limit: NEIGHBOURHOOD_MEMORIES, privateOnly: true, order: 'recent', ...scope }),
  ]);
  return {
    entity: { id: entity.id, name: entity.name, type: entity.entity_type, entity_type: entity.entity_type },
    neighbors: walk.rows.map((n) => ({
      id: n.id,
      name: n.name,
      type: n.entity_type,
      entity_type: n.entity_type,
      relationship: CO_OCCURRENCE,
      depth: n.depth,
    })),
    total_neighbors: walk.total,
    depth: q.depth,
    memories: memories.map((m) => ({ id: m.memory_id, content: m.content, relationship: m.relationship, created_at: toUnixSeconds(m.created_at)! })),
  };
}

/** GET /v1/entities/{id}/graph: an entity, the memories linked to it and the entities those memories also mention (the console's graph view). */
export async function entityGraph(deps: EntityDeps, auth: Caller, id: string) {
  const row = await entitiesRepository.findLive(deps.db, auth.accountId, id);
  if (!row) throw ApiError.notFound('Entity');
  const scope = { agentId: auth.agentId, limit: GRAPH_LIMIT };
  const [counts, memories, neighbours] = await Promise.all([
    entitiesRepository.countsFor(deps.db, auth.accountId, [id]),
    entityGraphRepository.memoriesOf(deps.db, auth.accountId, id, { ...scope, order: 'relevance' }),
    entityGraphRepository.coMentioned(deps.db, auth.accountId, id, scope),
  ]);
  return {
    object: 'entity_graph' as const,
    entity: presentEntity(row, counts.get(id)),
    memories: memories.map((m) => ({
      memory_id: m.memory_id,
      agent_id: m.agent_id,
      // Code points, not UTF-16 units: a preview never ends in half a character.
      content_preview: Array.from(m.content).slice(0, PREVIEW_CHARS).join(''),
      relationship: m.relationship,
      relevance_score: Math.round(m.relevance_score * 1e4) / 1e4,
      created_at: toIso(m.created_at)!,
    })),
    neighbours: neighbours.map((n) => ({ id: n.id, name: n.name, entity_type: n.entity_type, shared_memories: n.shared_memories })),
  };
}
