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

export interface EntityNeighbour {
  id: string;
  name: string;
  entity_type: string;
  depth: number;
}

/**
 * The knowledge graph as the links define it: two entities are adjacent when they are linked to
 * the same live memory (of `agentId`, when given). Walks are bounded by `maxDepth` (a small
 * integer checked by the caller); UNION keeps one row per (entity, depth) pair, so the walk is
 * bounded by entities × depth whatever the graph's shape.
 */
export const entityGraphRepository = {
  async neighbours(
    db: Knex,
    accountId: string,
    entityId: string,
    opts: { maxDepth: number; limit: number; agentId?: string | null },
  ): Promise<{ rows: EntityNeighbour[]; total: number }> {
    const agentClause = opts.agentId ? 'AND m.agent_id = :agent' : '';
    const params = { account: accountId, start: entityId, depth: opts.maxDepth, limit: opts.limit, agent: opts.agentId ?? null };
    const { rows } = await db.raw(
      `WITH RECURSIVE walk (entity_id, depth) AS (
         SELECT CAST(:start AS uuid), 0
         UNION
         SELECT l2.entity_id, w.depth + 1
           FROM walk w
           JOIN entity_memory_links l1 ON l1.account_id = :account AND l1.entity_id = w.entity_id
           JOIN memories m ON m.account_id = l1.account_id AND m.id = l1.memory_id AND m.deleted_at IS NULL ${agentClause}
           JOIN entity_memory_links l2 ON l2.account_id = l1.account_id AND l2.memory_id = l1.memory_id AND l2.entity_id <> w.entity_id
          WHERE w.depth < :depth
       ),
       nearest AS (
         SELECT entity_id, min(depth) AS depth FROM walk WHERE entity_id <> CAST(:start AS uuid) GROUP BY entity_id
       )
       SELECT e.id, e.name, e.entity_type, n.depth, count(*) OVER () AS total
         FROM nearest n
         JOIN entities e ON e.account_id = :account AND e.id = n.entity_id AND e.deleted_at IS NULL
        ORDER BY n.depth, e.name, e.id
        LIMIT :limit`,
      params,
    );
    const list = rows as Array<EntityNeighbour & { total: string | number }>;
    return {
      rows: list.map(({ total: _t, ...r }) => ({ ...r, depth: Number(r.depth) })),
      total: list.length ? Number(list[0]!.total) : 0,
    };
  },

  /**
   * Live memories linked to the entity (of `agentId`, when given): by link relevance, or newest first.
   * `privateOnly` leaves confidential memories out. One row per link (a memory linked twice under two
   * relationships appears twice).
   */
  async memoriesOf(
    db: Knex,
    accountId: string,
    entityId: string,
    o: { agentId?: string | null; limit: number; privateOnly?: boolean; order: 'relevance' | 'recent' },
  ): Promise<GraphMemoryRow[]> {
    const q = db('entity_memory_links as l')
      .join('memories as m', function joinMemories() {
        this.on('m.account_id', 'l.account_id').andOn('m.id', 'l.memory_id');
      })
      .where({ 'l.account_id': accountId, 'l.entity_id': entityId })
      .whereNull('m.deleted_at')
      .select('l.memory_id', 'm.agent_id', 'm.content', 'l.relationship', 'l.relevance_score', 'm.created_at')
      .orderBy(
        o.order === 'relevance'
          ? [{ column: 'l.relevance_score', order: 'desc' }, { column: 'm.created_at', order: 'desc' }, { column: 'm.id', order: 'desc' }]
          : [{ column: 'm.created_at', order: 'desc' }, { column: 'm.id', order: 'desc' }],
      )
      .limit(o.limit);
    if (o.agentId) q.where('m.agent_id', o.agentId);
    if (o.privateOnly) q.where('m.visibility', 'private');
    const rows: GraphMemoryRow[] = await q;
    return rows.map((r) => ({ ...r, relevance_score: Number(r.relevance_score) }));
  },

  /**
   * The entities co-mentioned with this one (linked to the same live memories), strongest first with
   * how many memories they share: the one-hop view of the console's graph page.
   */
  async coMentioned(db: Knex, accountId: string, entityId: string, o: { agentId: string | null; limit: number }): Promise<GraphNeighbourRow[]> {
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
