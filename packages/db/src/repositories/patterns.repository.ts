import type { Knex } from 'knex';
import { Page, PageParams, paginate } from '../pagination';

export interface PatternRow {
  account_id: string;
  id: string;
  title: string;
  description: string;
  scope: 'global' | 'project';
  category: string | null;
  tags: string[];
  example_code: string | null;
  source_project_id: string | null;
  source_project_slug: string | null;
  metadata: Record<string, unknown>;
  adoption_count: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'p.account_id', 'p.id', 'p.title', 'p.description', 'p.scope', 'p.category', 'p.tags', 'p.example_code',
  'p.source_project_id', 'sp.slug AS source_project_slug', 'p.metadata', 'p.adoption_count', 'p.created_at', 'p.updated_at',
];

/** Patterns with the slug of their source project, live only. */
function patterns(db: Knex, accountId: string): Knex.QueryBuilder {
  return db('patterns as p')
    .leftJoin('projects as sp', function joinSource() {
      this.on('sp.account_id', 'p.account_id').andOn('sp.id', 'p.source_project_id');
    })
    .where('p.account_id', accountId)
    .whereNull('p.deleted_at');
}

export interface PatternFields {
  title?: string;
  description?: string;
  scope?: 'global' | 'project';
  category?: string | null;
  tags?: string[];
  exampleCode?: string | null;
  metadata?: Record<string, unknown>;
  embedding?: string;
  embeddingModel?: string;
}

export const patternsRepository = {
  async insert(db: Knex, accountId: string, p: PatternFields & { sourceProjectId: string | null }): Promise<string> {
    const [row] = await db('patterns')
      .insert({
        account_id: accountId,
        title: p.title,
        description: p.description,
        scope: p.scope ?? 'global',
        category: p.category ?? null,
        tags: p.tags ?? [],
        example_code: p.exampleCode ?? null,
        source_project_id: p.sourceProjectId,
        metadata: p.metadata ?? {},
        embedding: p.embedding,
        embedding_model: p.embeddingModel,
      })
      .returning('id');
    return (row as { id: string }).id;
  },

  async findLive(db: Knex, accountId: string, id: string): Promise<PatternRow | undefined> {
    return patterns(db, accountId).where('p.id', id).first(COLUMNS);
  },

  async list(db: Knex, accountId: string, f: { category?: string; scope?: string; tag?: string }, page: PageParams): Promise<Page<PatternRow>> {
    const q = db('patterns').where('patterns.account_id', accountId).whereNull('patterns.deleted_at');
    if (f.category) q.where('patterns.category', f.category);
    if (f.scope) q.where('patterns.scope', f.scope);
    if (f.tag) q.whereRaw('patterns.tags @> ARRAY[?]::text[]', [f.tag]);
    const result = await paginate<{ id: string }>(q.select('patterns.id'), 'patterns', page);
    const rows: PatternRow[] = await patterns(db, accountId).whereIn('p.id', result.rows.map((r) => r.id)).select(COLUMNS);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return { ...result, rows: result.rows.flatMap((r) => byId.get(r.id) ?? []) };
  },

  async update(db: Knex, accountId: string, id: string, p: PatternFields): Promise<boolean> {
    const set: Record<string, unknown> = { updated_at: db.fn.now() };
    if (p.title !== undefined) set.title = p.title;
    if (p.description !== undefined) set.description = p.description;
    if (p.scope !== undefined) set.scope = p.scope;
    if (p.category !== undefined) set.category = p.category;
    if (p.tags !== undefined) set.tags = p.tags;
    if (p.exampleCode !== undefined) set.example_code = p.exampleCode;
    if (p.embedding !== undefined) Object.assign(set, { embedding: p.embedding, embedding_model: p.embeddingModel });
    if (p.metadata !== undefined) set.metadata = db.raw('patterns.metadata || ?::jsonb', [JSON.stringify(p.metadata)]);
    return (await db('patterns').where({ account_id: accountId, id }).whereNull('deleted_at').update(set)) > 0;
  },

  async softDelete(db: Knex, accountId: string, id: string): Promise<boolean> {
    return (await db('patterns').where({ account_id: accountId, id }).whereNull('deleted_at').update({ deleted_at: db.fn.now() })) > 0;
  },

  /** Cosine similarity over title + description embeddings (patterns_embedding_hnsw_idx). */
  async similar(db: Knex, accountId: string, vector: string, model: string, k: number, category?: string) {
    const q = patterns(db, accountId)
      .where('p.embedding_model', model)
      .select(...COLUMNS, db.raw('1 - (p.embedding <=> ?::vector) AS score', [vector]))
      .orderByRaw('p.embedding <=> ?::vector', [vector])
      .limit(k);
    if (category) q.where('p.category', category);
    return q as Promise<Array<PatternRow & { score: number }>>;
  },

  /**
   * Adoption and its count change together: the count moves only when a row was really inserted
   * or deleted, so repeated or concurrent calls keep adoption_count exact.
   */
  async adopt(db: Knex, accountId: string, patternId: string, projectId: string): Promise<void> {
    await db.raw(
      `WITH ins AS (
         INSERT INTO pattern_adoptions (account_id, pattern_id, project_id) VALUES (?, ?, ?)
         ON CONFLICT DO NOTHING RETURNING 1)
       UPDATE patterns SET adoption_count = adoption_count + (SELECT count(*) FROM ins), updated_at = now()
        WHERE account_id = ? AND id = ?`,
      [accountId, patternId, projectId, accountId, patternId],
    );
  },

  /** false when the project had not adopted the pattern. */
  async unadopt(db: Knex, accountId: string, patternId: string, projectId: string): Promise<boolean> {
    const { rows } = await db.raw(
      `WITH del AS (
         DELETE FROM pattern_adoptions WHERE account_id = ? AND pattern_id = ? AND project_id = ? RETURNING 1)
       UPDATE patterns SET adoption_count = adoption_count - (SELECT count(*) FROM del), updated_at = now()
        WHERE account_id = ? AND id = ? RETURNING (SELECT count(*) FROM del) AS removed`,
      [accountId, patternId, projectId, accountId, patternId],
    );
    return Number(rows[0]?.removed ?? 0) > 0;
  },

  async adoptedByProject(db: Knex, accountId: string, projectId: string) {
    return db('pattern_adoptions as a')
      .join('patterns as p', function joinPatterns() {
        this.on('p.account_id', 'a.account_id').andOn('p.id', 'a.pattern_id');
      })
      .where({ 'a.account_id': accountId, 'a.project_id': projectId })
      .whereNull('p.deleted_at')
      .orderBy('a.created_at', 'desc')
      .select('p.id', 'p.title', 'p.category') as Promise<Array<{ id: string; title: string; category: string | null }>>;
  },
};
