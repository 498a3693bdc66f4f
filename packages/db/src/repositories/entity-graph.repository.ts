import type { Knex } from 'knex';

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

  /** Live memories linked to the entity (private ones only; of `agentId` when given), newest first. */
  async memoriesOf(db: Knex, accountId: string, entityId: string, opts: { limit: number; agentId?: string | null }) {
    const q = db('entity_memory_links as l')
      .join('memories as m', function joinMemory() {
        this.on('m.account_id', 'l.account_id').andOn('m.id', 'l.memory_id');
      })
      .where({ 'l.account_id': accountId, 'l.entity_id': entityId, 'm.visibility': 'private' })
      .whereNull('m.deleted_at')
      .distinct('m.id', 'm.content', 'l.relationship', 'm.created_at')
      .orderBy([{ column: 'm.created_at', order: 'desc' }, { column: 'm.id', order: 'desc' }])
      .limit(opts.limit);
    if (opts.agentId) q.where('m.agent_id', opts.agentId);
    return q as Promise<Array<{ id: string; content: string; relationship: string; created_at: Date }>>;
  },
};
