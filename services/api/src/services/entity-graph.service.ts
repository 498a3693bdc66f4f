import { ApiError, toIso } from '@ams/core';
import { entitiesRepository, entityGraphRepository } from '@ams/db';
import type { AppContext, AuthContext } from '../context';
import { presentEntity } from './entities.service';

const GRAPH_LIMIT = 50;

/** An entity, the memories linked to it and the entities those memories also mention (the console's graph view). */
export async function entityGraph(ctx: AppContext, auth: AuthContext, id: string) {
  const row = await entitiesRepository.findLive(ctx.db.knex, auth.accountId, id);
  if (!row) throw ApiError.notFound('Entity');
  const scope = { agentId: auth.agentId, limit: GRAPH_LIMIT };
  const [counts, memories, neighbours] = await Promise.all([
    entitiesRepository.countsFor(ctx.db.knex, auth.accountId, [id]),
    entityGraphRepository.memoriesOf(ctx.db.knex, auth.accountId, id, scope),
    entityGraphRepository.neighbours(ctx.db.knex, auth.accountId, id, scope),
  ]);
  return {
    object: 'entity_graph' as const,
    entity: presentEntity(row, counts.get(id)),
    memories: memories.map((m) => ({
      memory_id: m.memory_id,
      agent_id: m.agent_id,
      content_preview: m.content,
      relationship: m.relationship,
      relevance_score: Math.round(m.relevance_score * 1e4) / 1e4,
      created_at: toIso(m.created_at)!,
    })),
    neighbours: neighbours.map((n) => ({ id: n.id, name: n.name, entity_type: n.entity_type, shared_memories: n.shared_memories })),
  };
}
