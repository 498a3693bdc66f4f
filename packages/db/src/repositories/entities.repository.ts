import type { Knex } from 'knex';

export interface EntityRow {
  account_id: string;
  id: string;
  name: string;
  entity_type: string;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export const entitiesRepository = {
  /**
   * Same name (case-insensitive) and type is the same entity: one statement returns the ids of
   * existing and new ones alike (the no-op update makes RETURNING include the existing rows).
   */
  async upsertMany(
    db: Knex,
    accountId: string,
    items: Array<{ name: string; entityType: string }>,
  ): Promise<Array<{ id: string; name: string; entity_type: string }>> {
    if (items.length === 0) return [];
    const { rows } = await db.raw(
      `INSERT INTO entities (account_id, name, entity_type)
       SELECT ?, x.name, x.entity_type FROM jsonb_to_recordset(?::jsonb) AS x(name text, entity_type text)
       ON CONFLICT (account_id, entity_type, lower(name)) WHERE deleted_at IS NULL
       DO UPDATE SET updated_at = entities.updated_at
       RETURNING id, name, entity_type`,
      [accountId, JSON.stringify(items.map((i) => ({ name: i.name, entity_type: i.entityType })))],
    );
    return rows;
  },

  /** The memory object's `entities`: live entities linked to each memory, one query for all. */
  async entitiesForMemories(
    db: Knex,
    accountId: string,
    memoryIds: string[],
  ): Promise<Map<string, Array<{ type: string; value: string; confidence: number }>>> {
    const out = new Map<string, Array<{ type: string; value: string; confidence: number }>>();
    if (memoryIds.length === 0) return out;
    const rows: Array<{ memory_id: string; entity_type: string; name: string; relevance_score: number }> = await db(
      'entity_memory_links as l',
    )
      .join('entities as e', function joinEntities() {
        this.on('e.account_id', 'l.account_id').andOn('e.id', 'l.entity_id');
      })
      .where('l.account_id', accountId)
      .whereIn('l.memory_id', memoryIds)
      .whereNull('e.deleted_at')
      .select('l.memory_id', 'e.entity_type', 'e.name', 'l.relevance_score')
      .orderBy([{ column: 'l.memory_id' }, { column: 'l.relevance_score', order: 'desc' }, { column: 'e.name' }]);
    for (const r of rows) {
      const list = out.get(r.memory_id) ?? [];
      // One entry per entity, even when linked under several relationships.
      if (!list.some((e) => e.type === r.entity_type && e.value === r.name)) {
        list.push({ type: r.entity_type, value: r.name, confidence: Math.round(Number(r.relevance_score) * 1e4) / 1e4 });
      }
      out.set(r.memory_id, list);
    }
    return out;
  },
};

export const entityLinksRepository = {
  async insertMany(
    db: Knex,
    accountId: string,
    links: Array<{ entityId: string; memoryId: string; relationship?: string; relevanceScore: number }>,
  ): Promise<void> {
    if (links.length === 0) return;
    await db('entity_memory_links')
      .insert(
        links.map((l) => ({
          account_id: accountId,
          entity_id: l.entityId,
          memory_id: l.memoryId,
          relationship: l.relationship ?? 'mentioned_in',
          relevance_score: l.relevanceScore,
        })),
      )
      .onConflict(['account_id', 'entity_id', 'memory_id', 'relationship'])
      .ignore();
  },
};
