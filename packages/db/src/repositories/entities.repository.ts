import type { Knex } from 'knex';
import { Page, PageParams, paginate } from '../pagination';

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

export interface EntityCounts {
  memory_count: number;
  relationship_count: number;
}

export interface EntityLinkRow {
  account_id: string;
  entity_id: string;
  memory_id: string;
  relationship: string;
  relevance_score: number;
  created_at: Date;
}

export const entitiesRepository = {
  /** Throws the unique violation (entities_account_type_name_key) for a live same name + type. */
  async insert(db: Knex, e: { accountId: string; name: string; entityType: string; metadata: Record<string, unknown> }): Promise<EntityRow> {
    const [row] = await db('entities')
      .insert({ account_id: e.accountId, name: e.name, entity_type: e.entityType, metadata: e.metadata })
      .returning('*');
    return row as EntityRow;
  },

  async findLive(db: Knex, accountId: string, id: string): Promise<EntityRow | undefined> {
    return db('entities').where({ account_id: accountId, id }).whereNull('deleted_at').first();
  },

  async list(db: Knex, accountId: string, filters: { entityType?: string }, page: PageParams): Promise<Page<EntityRow>> {
    const q = db('entities').where('entities.account_id', accountId).whereNull('entities.deleted_at');
    if (filters.entityType) q.where('entities.entity_type', filters.entityType);
    return paginate<EntityRow>(q, 'entities', page);
  },

  /** Metadata merged (jsonb ||). */
  async update(
    db: Knex,
    accountId: string,
    id: string,
    p: { name?: string; entityType?: string; metadata?: Record<string, unknown> },
  ): Promise<EntityRow | undefined> {
    const set: Record<string, unknown> = { updated_at: db.fn.now() };
    if (p.name !== undefined) set.name = p.name;
    if (p.entityType !== undefined) set.entity_type = p.entityType;
    if (p.metadata !== undefined) set.metadata = db.raw('entities.metadata || ?::jsonb', [JSON.stringify(p.metadata)]);
    const [row] = await db('entities').where({ account_id: accountId, id }).whereNull('deleted_at').update(set).returning('*');
    return row as EntityRow | undefined;
  },

  /** Soft delete; its links stay. */
  async softDelete(db: Knex, accountId: string, id: string): Promise<boolean> {
    const n = await db('entities')
      .where({ account_id: accountId, id })
      .whereNull('deleted_at')
      .update({ deleted_at: db.fn.now(), updated_at: db.fn.now() });
    return n > 0;
  },

  /** Linked live memories and links to them, for a page of entities in one statement. */
  async countsFor(db: Knex, accountId: string, entityIds: string[]): Promise<Map<string, EntityCounts>> {
    const out = new Map<string, EntityCounts>();
    if (entityIds.length === 0) return out;
    const rows: Array<{ entity_id: string; memory_count: number; relationship_count: number }> = await db('entity_memory_links as l')
      .join('memories as m', function joinMemories() {
        this.on('m.account_id', 'l.account_id').andOn('m.id', 'l.memory_id');
      })
      .where('l.account_id', accountId)
      .whereIn('l.entity_id', entityIds)
      .whereNull('m.deleted_at')
      .groupBy('l.entity_id')
      .select('l.entity_id', db.raw('count(DISTINCT l.memory_id) AS memory_count'), db.raw('count(*) AS relationship_count'));
    for (const r of rows) out.set(r.entity_id, { memory_count: Number(r.memory_count), relationship_count: Number(r.relationship_count) });
    return out;
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
  /** Inserts the link, or finds the identical one already there: a duplicate link is not an error. */
  async link(
    db: Knex,
    l: { accountId: string; entityId: string; memoryId: string; relationship: string; relevanceScore: number },
  ): Promise<EntityLinkRow> {
    const key = { account_id: l.accountId, entity_id: l.entityId, memory_id: l.memoryId, relationship: l.relationship };
    await db('entity_memory_links')
      .insert({ ...key, relevance_score: l.relevanceScore })
      .onConflict(['account_id', 'entity_id', 'memory_id', 'relationship'])
      .ignore();
    return db('entity_memory_links').where(key).first();
  },
};
