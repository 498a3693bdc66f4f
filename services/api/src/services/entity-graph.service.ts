import { ApiError, toUnixSeconds } from '@ams/core';
import { entitiesRepository, entityGraphRepository } from '@ams/db';
import type { AppContext, AuthContext } from '../context';

const NEIGHBOURHOOD_MEMORIES = 20;
/** Two entities linked to the same memory are neighbours; the edge carries this label. */
const CO_OCCURRENCE = 'co_occurs_with';

/**
 * GET /v1/entities/{id}/neighborhood (client-compat §3.6): the entities reachable within `depth`
 * hops over shared memories (a key bound to an agent walks only that agent's memories), nearest
 * first and capped at `max_neighbors`, plus the entity's own memories.
 */
export async function entityNeighbourhood(ctx: AppContext, auth: AuthContext, id: string, q: { depth: number; max_neighbors: number }) {
  const entity = await entitiesRepository.findLive(ctx.db.knex, auth.accountId, id);
  if (!entity) throw ApiError.notFound('Entity');
  const scope = { agentId: auth.agentId };
  const [walk, memories] = await Promise.all([
    entityGraphRepository.neighbours(ctx.db.knex, auth.accountId, id, { maxDepth: q.depth, limit: q.max_neighbors, ...scope }),
    entityGraphRepository.memoriesOf(ctx.db.knex, auth.accountId, id, { limit: NEIGHBOURHOOD_MEMORIES, ...scope }),
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
    memories: memories.map((m) => ({ id: m.id, content: m.content, relationship: m.relationship, created_at: toUnixSeconds(m.created_at)! })),
  };
}
