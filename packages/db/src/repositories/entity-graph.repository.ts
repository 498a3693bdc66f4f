import type { Knex } from 'knex';

export interface GraphMemoryRow {
  memory_id: string;
  agent_id: string;
  content: string;
  relationship: string;
  relevance_score: number;
  created_at: Date;
}

export interface GraphNeighbourRow {
  id: string;
  name: string;
  entity_type: string;
  shared_memories: number;
}

/**
 * One entity's neighbourhood in the knowledge graph: the live memories linked to it, and the live
 * entities linked to those same memories (co-mentioned), strongest first. `agentId` narrows both
 * to one agent's memories (agent-bound keys). Uses the links' (account_id, entity_id, …) key.
 */
export const entityGraphRepository = {
  async memoriesOf(db: Knex, accountId: string, entityId: string, o: { agentId: string | null; limit: number }): Promise<GraphMemoryRow[]> {
    const q = db('entity_memory_links as l')
      .join('memories as m', function joinMemories() {
        this.on('m.account_id', 'l.account_id').andOn('m.id', 'l.memory_id');
      })
      .where({ 'l.account_id': accountId, 'l.entity_id': entityId })
      .whereNull('m.deleted_at')
      .select('l.memory_id', 'm.agent_id', db.raw('left(m.content, 280) AS content'), 'l.relationship', 'l.relevance_score', 'm.created_at')
      .orderBy([{ column: 'l.relevance_score', order: 'desc' }, { column: 'm.created_at', order: 'desc' }])
      .limit(o.limit);
    if (o.agentId) q.where('m.agent_id', o.agentId);
    const rows: GraphMemoryRow[] = await q;
    return rows.map((r) => ({ ...r, relevance_score: Number(r.relevance_score) }));
  },

  async neighbours(db: Knex, accountId: string, entityId: string, o: { agentId: string | null; limit: number }): Promise<GraphNeighbourRow[]> {
    const q = db('entity_memory_links as l')
      .join('memories as m', function joinMemories() {
        this.on('m.account_id', 'l.account_id').andOn('m.id', 'l.memory_id');
      })
      .join('entity_memory_links as other', function joinOther() {
        this.on('other.account_id', 'l.account_id').andOn('other.memory_id', 'l.memory_id').andOn('other.entity_id', '<>', 'l.entity_id');
      })
      .join('entities as e', function joinEntities() {
        this.on('e.account_id', 'other.account_id').andOn('e.id', 'other.entity_id');
      })
      .where({ 'l.account_id': accountId, 'l.entity_id': entityId })
      .whereNull('m.deleted_at')
      .whereNull('e.deleted_at')
      .groupBy('e.id', 'e.name', 'e.entity_type')
      .select('e.id', 'e.name', 'e.entity_type', db.raw('count(DISTINCT l.memory_id) AS shared_memories'))
      .orderBy([{ column: 'shared_memories', order: 'desc' }, { column: 'e.name' }])
      .limit(o.limit);
    if (o.agentId) q.where('m.agent_id', o.agentId);
    const rows: GraphNeighbourRow[] = await q;
    return rows.map((r) => ({ ...r, shared_memories: Number(r.shared_memories) }));
  },
};
