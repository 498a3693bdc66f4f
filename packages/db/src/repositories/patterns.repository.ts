import type { Knex } from 'knex';
import type { BoundVector } from '../vector-column';
import { nearestNeighbours, withScores } from '../nearest';
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
  embedding?: BoundVector;
  embeddingModel?: string;
}

export const patternsRepository = {
  async insert(db: Knex, accountId: string, p: PatternFields & Required<Pick<PatternFields, 'scope'>> & { sourceProjectId: string | null }): Promise<string> {
    const [row] = await db('patterns')
      .insert({
        account_id: accountId,
        title: p.title,
        description: p.description,
        scope: p.scope,
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

  /**
   * The k live patterns nearest to the vector (title + description embeddings of the current
   * model), best first, with score = cosine similarity. Index: patterns_embedding_hnsw_idx.
   */
  async similar(db: Knex, accountId: string, vector: BoundVector, model: string, k: number, category?: string, forProjectId?: string | null) {
    const filtered = (q: Knex) => {
      const b = q('patterns').where({ 'patterns.account_id': accountId, 'patterns.embedding_model': model }).whereNull('patterns.deleted_at');
      // For a project: global patterns plus those it adopted (null: an unknown project, global only).
      if (forProjectId !== undefined) {
        b.where((w) => {
          w.where('patterns.scope', 'global');
          if (forProjectId) {
            w.orWhereIn('patterns.id', q('pattern_adoptions').where({ account_id: accountId, project_id: forProjectId }).select('pattern_id'));
          }
        });
      }
      return category ? b.where('patterns.category', category) : b;
    };
    const hits = await nearestNeighbours(db, 'patterns', filtered, vector, k);
    const rows: PatternRow[] = await patterns(db, accountId).whereIn('p.id', hits.map((h) => h.id)).select(COLUMNS);
    return withScores(hits, rows);
  },

  /**
   * Adoption and its count change together: the count moves only when a row was really inserted,
   * so repeated or concurrent calls keep adoption_count exact. The project row is share-locked and
   * must be live, so a concurrent project delete (which withdraws its adoptions) cannot interleave.
   * Returns false when the project is not live. updated_at moves only with a row inserted: greatest()
   * of NULL leaves it (Citus refuses now() inside CASE, the plainer spelling).
   */
  async adopt(db: Knex, accountId: string, patternId: string, projectId: string): Promise<boolean> {
    const { rows } = await db.raw(
      `WITH project AS (
         SELECT id FROM projects WHERE account_id = ? AND id = ? AND deleted_at IS NULL FOR SHARE),
       ins AS (
         INSERT INTO pattern_adoptions (account_id, pattern_id, project_id) SELECT ?, ?, id FROM project
         ON CONFLICT DO NOTHING RETURNING now() AS at)
       UPDATE patterns
          SET adoption_count = adoption_count + (SELECT count(*) FROM ins),
              updated_at = greatest(updated_at, (SELECT max(at) FROM ins))
        WHERE account_id = ? AND id = ?
       RETURNING (SELECT count(*) FROM project) AS live_project`,
      [accountId, projectId, accountId, patternId, accountId, patternId],
    );
    return Number(rows[0]?.live_project ?? 0) > 0;
  },

  /** false when the (live) project had not adopted the pattern; locking as in adopt. */
  async unadopt(db: Knex, accountId: string, patternId: string, projectId: string): Promise<boolean> {
    const { rows } = await db.raw(
      `WITH project AS (
         SELECT id FROM projects WHERE account_id = ? AND id = ? AND deleted_at IS NULL FOR SHARE),
       del AS (
         DELETE FROM pattern_adoptions
          WHERE account_id = ? AND pattern_id = ? AND project_id IN (SELECT id FROM project) RETURNING now() AS at)
       UPDATE patterns
          SET adoption_count = adoption_count - (SELECT count(*) FROM del),
              updated_at = greatest(updated_at, (SELECT max(at) FROM del))
        WHERE account_id = ? AND id = ?
       RETURNING (SELECT count(*) FROM del) AS removed`,
      [accountId, projectId, accountId, patternId, accountId, patternId],
    );
    return Number(rows[0]?.removed ?? 0) > 0;
  },

  /**
   * A deleted project no longer counts as an adopter: each pattern it adopted loses one from
   * adoption_count (the adoption rows are kept, like the rest of a soft-deleted project's data).
   * Call in the transaction that soft-deletes the project, after that UPDATE: its row lock waits for
   * adopt/un-adopt calls holding the project, and this statement's snapshot then sees their rows.
   */
  async withdrawProjectAdoptions(db: Knex, accountId: string, projectId: string): Promise<void> {
    // Pattern rows are locked in id order so two project deletes sharing patterns cannot deadlock.
    await db.raw(
      `WITH adopted AS (
         SELECT p.id FROM patterns p
           JOIN pattern_adoptions a ON a.account_id = p.account_id AND a.pattern_id = p.id
          WHERE a.account_id = ? AND a.project_id = ?
          ORDER BY p.id FOR UPDATE OF p)
       UPDATE patterns SET adoption_count = adoption_count - 1
        WHERE account_id = ? AND id IN (SELECT id FROM adopted)`,
      [accountId, projectId, accountId],
    );
  },

  /** Live global patterns the project has not adopted, most adopted first (pattern suggestions). */
  async notAdoptedBy(db: Knex, accountId: string, projectId: string, limit: number): Promise<{ rows: PatternRow[]; total: number }> {
    const base = () =>
      patterns(db, accountId)
        .where('p.scope', 'global')
        .whereNotIn('p.id', db('pattern_adoptions').where({ account_id: accountId, project_id: projectId }).select('pattern_id'));
    const [{ n }] = await base().count({ n: '*' });
    const rows: PatternRow[] = await base()
      .orderBy([{ column: 'p.adoption_count', order: 'desc' }, { column: 'p.created_at', order: 'desc' }, { column: 'p.id', order: 'desc' }])
      .limit(limit)
      .select(COLUMNS);
    return { rows, total: Number(n) };
  },

  /** Live patterns adopted by every one of the projects, most adopted first. */
  async adoptedByAll(db: Knex, accountId: string, projectIds: string[]): Promise<PatternRow[]> {
    if (projectIds.length === 0) return [];
    return patterns(db, accountId)
      .whereIn(
        'p.id',
        db('pattern_adoptions')
          .where('account_id', accountId)
          .whereIn('project_id', projectIds)
          .groupBy('pattern_id')
          .havingRaw('count(DISTINCT project_id) = ?', [new Set(projectIds).size])
          .select('pattern_id'),
      )
      .orderBy([{ column: 'p.adoption_count', order: 'desc' }, { column: 'p.created_at', order: 'desc' }])
      .select(COLUMNS);
  },

  async adoptedByProject(db: Knex, accountId: string, projectId: string) {
    return db('pattern_adoptions as a')
      .join('patterns as p', function joinPatterns() {
        this.on('p.account_id', 'a.account_id').andOn('p.id', 'a.pattern_id');
      })
      .where({ 'a.account_id': accountId, 'a.project_id': projectId })
      .whereNull('p.deleted_at')
      .orderBy('a.created_at', 'desc')
      .select('p.id', 'p.title', 'p.category', 'p.description') as Promise<
      Array<{ id: string; title: string; category: string | null; description: string }>
    >;
  },
};
