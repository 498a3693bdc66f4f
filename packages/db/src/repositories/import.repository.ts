import type { Knex } from 'knex';

/** The tables an import writes, by record kind (never a name taken from the input). */
export const IMPORT_TABLES = {
  agent: 'agents',
  project: 'projects',
  session: 'sessions',
  memory: 'memories',
  entity: 'entities',
  decision: 'decisions',
  pattern: 'patterns',
  webhook: 'webhooks',
} as const;
export type IdentifiedKind = keyof typeof IMPORT_TABLES;

type Row = Record<string, unknown>;

export const importRepository = {
  /** The row holding this id in the account, deleted or not (ids are unique per account). */
  async findById(db: Knex, kind: IdentifiedKind, accountId: string, id: string): Promise<{ id: string } | undefined> {
    return db(IMPORT_TABLES[kind]).select('id').where({ account_id: accountId, id }).first();
  },

  /** Which of these ids the account already holds (one query for a batch of lines). */
  async existingIds(db: Knex, kind: IdentifiedKind, accountId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows: Array<{ id: string }> = await db(IMPORT_TABLES[kind]).select('id').where('account_id', accountId).whereIn('id', ids);
    return new Set(rows.map((r) => r.id));
  },

  /**
   * The live row another record's natural key already names (agent name, project slug, session
   * external id, entity type + name, memory client id): an import maps onto it instead of failing.
   */
  async findByNaturalKey(db: Knex, kind: IdentifiedKind, accountId: string, record: Record<string, string | null | undefined>): Promise<{ id: string } | undefined> {
    const q = db(IMPORT_TABLES[kind]).select('id').where('account_id', accountId);
    switch (kind) {
      case 'agent':
        return q.where('name', record.name).whereNull('deleted_at').first();
      case 'project':
        return q.where('slug', record.slug).whereNull('deleted_at').first();
      case 'session':
        return record.external_id ? q.where('external_id', record.external_id).whereNull('deleted_at').first() : undefined;
      case 'entity':
        return q.where('entity_type', record.entity_type).whereRaw('lower(name) = lower(?)', [record.name ?? '']).whereNull('deleted_at').first();
      case 'memory':
        return record.client_id ? q.where('client_id', record.client_id).first() : undefined;
      default:
        return undefined;
    }
  },

  async insert(db: Knex, kind: IdentifiedKind, accountId: string, row: Row): Promise<void> {
    await db(IMPORT_TABLES[kind]).insert({ ...row, account_id: accountId });
  },

  /** Overwrites every given column; an overwritten soft-deleted row comes back. */
  async overwrite(db: Knex, kind: IdentifiedKind, accountId: string, id: string, row: Row): Promise<void> {
    const restore = kind === 'webhook' ? {} : { deleted_at: null };
    await db(IMPORT_TABLES[kind]).where({ account_id: accountId, id }).update({ ...row, ...restore });
  },

  async setSupersededBy(db: Knex, accountId: string, id: string, supersededBy: string): Promise<void> {
    await db('decisions').where({ account_id: accountId, id }).update({ superseded_by: supersededBy });
  },

  /** true when the link is new; an existing one is updated only when overwriting. */
  async upsertEntityLink(db: Knex, accountId: string, link: Row, overwrite: boolean): Promise<boolean> {
    const q = db('entity_memory_links').insert({ ...link, account_id: accountId }).onConflict(['account_id', 'entity_id', 'memory_id', 'relationship']);
    const rows = await (overwrite ? q.merge(['relevance_score', 'created_at']) : q.ignore()).returning('entity_id');
    return (rows as unknown[]).length > 0;
  },

  /** true when the adoption is new. */
  async insertAdoption(db: Knex, accountId: string, adoption: Row): Promise<boolean> {
    const rows = await db('pattern_adoptions').insert({ ...adoption, account_id: accountId }).onConflict(['account_id', 'pattern_id', 'project_id']).ignore().returning('pattern_id');
    return (rows as unknown[]).length > 0;
  },
};
