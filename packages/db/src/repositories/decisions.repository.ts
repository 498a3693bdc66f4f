import type { Knex } from 'knex';
import type { BoundVector } from '../vector-column';
import { nearestNeighbours, withScores } from '../nearest';
import { Page, PageParams, paginate } from '../pagination';

export type DecisionStatus = 'active' | 'superseded' | 'reverted' | 'experimental';

export interface DecisionRow {
  account_id: string;
  id: string;
  agent_id: string | null;
  session_id: string | null;
  project_slug: string | null;
  title: string;
  rationale: string;
  alternatives: string | null;
  status: DecisionStatus;
  superseded_by: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  embedding_model: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

const DECISION_COLUMNS = [
  'account_id', 'id', 'agent_id', 'session_id', 'project_slug', 'title', 'rationale', 'alternatives', 'status',
  'superseded_by', 'tags', 'metadata', 'embedding_model', 'created_at', 'updated_at', 'deleted_at',
];

export interface NewDecision {
  accountId: string;
  agentId: string | null;
  sessionId: string | null;
  projectSlug: string | null;
  title: string;
  rationale: string;
  alternatives: string | null;
  status: DecisionStatus;
  tags: string[];
  metadata: Record<string, unknown>;
  embedding: BoundVector;
  embeddingModel: string;
}

export interface DecisionPatch {
  title?: string;
  rationale?: string;
  alternatives?: string | null;
  status?: DecisionStatus;
  tags?: string[];
  metadata?: Record<string, unknown>;
  embedding?: BoundVector;
  embeddingModel?: string;
  supersededBy?: string;
}

export const decisionsRepository = {
  async insert(db: Knex, d: NewDecision): Promise<DecisionRow> {
    const [row] = await db('decisions')
      .insert({
        account_id: d.accountId,
        agent_id: d.agentId,
        session_id: d.sessionId,
        project_slug: d.projectSlug,
        title: d.title,
        rationale: d.rationale,
        alternatives: d.alternatives,
        status: d.status,
        tags: d.tags,
        metadata: d.metadata,
        embedding: d.embedding,
        embedding_model: d.embeddingModel,
      })
      .returning(DECISION_COLUMNS);
    return row as DecisionRow;
  },

  /** `forUpdate` locks the row for the rest of the caller's transaction (supersede). */
  async findLive(db: Knex, accountId: string, id: string, forUpdate = false): Promise<DecisionRow | undefined> {
    const q = db('decisions').select(DECISION_COLUMNS).where({ account_id: accountId, id }).whereNull('deleted_at').first();
    return forUpdate ? q.forUpdate() : q;
  },

  /** `tags`: any of them (the comma-separated form some clients send). */
  async list(db: Knex, accountId: string, f: { projectSlug?: string; status?: string; tag?: string; tags?: string[] }, page: PageParams): Promise<Page<DecisionRow>> {
    const q = db('decisions').where('decisions.account_id', accountId).whereNull('decisions.deleted_at');
    if (f.projectSlug) q.where('decisions.project_slug', f.projectSlug);
    if (f.status) q.where('decisions.status', f.status);
    if (f.tag) q.whereRaw('decisions.tags @> ARRAY[?]::text[]', [f.tag]);
    if (f.tags?.length) q.whereRaw('decisions.tags && ?::text[]', [f.tags]);
    const result = await paginate<DecisionRow & { embedding?: unknown }>(q, 'decisions', page);
    return { ...result, rows: result.rows.map(({ embedding: _e, ...r }) => r as DecisionRow) };
  },

  async update(db: Knex, accountId: string, id: string, p: DecisionPatch): Promise<DecisionRow | undefined> {
    const set: Record<string, unknown> = { updated_at: db.fn.now() };
    if (p.title !== undefined) set.title = p.title;
    if (p.rationale !== undefined) set.rationale = p.rationale;
    if (p.alternatives !== undefined) set.alternatives = p.alternatives;
    if (p.status !== undefined) set.status = p.status;
    if (p.tags !== undefined) set.tags = p.tags;
    if (p.supersededBy !== undefined) set.superseded_by = p.supersededBy;
    if (p.embedding !== undefined) Object.assign(set, { embedding: p.embedding, embedding_model: p.embeddingModel });
    if (p.metadata !== undefined) set.metadata = db.raw('decisions.metadata || ?::jsonb', [JSON.stringify(p.metadata)]);
    const [row] = await db('decisions').where({ account_id: accountId, id }).whereNull('deleted_at').update(set).returning(DECISION_COLUMNS);
    return row as DecisionRow | undefined;
  },

  async softDelete(db: Knex, accountId: string, id: string): Promise<boolean> {
    return (await db('decisions').where({ account_id: accountId, id }).whereNull('deleted_at').update({ deleted_at: db.fn.now() })) > 0;
  },

  /**
   * The k live decisions nearest to the vector (title + rationale embeddings of the current model),
   * best first, with score = cosine similarity. Index: decisions_embedding_hnsw_idx.
   */
  async similar(db: Knex, accountId: string, vector: BoundVector, model: string, k: number, projectSlug?: string, excludeSuperseded = false) {
    const filtered = (q: Knex) => {
      const b = q('decisions').where({ 'decisions.account_id': accountId, 'decisions.embedding_model': model }).whereNull('decisions.deleted_at');
      if (excludeSuperseded) b.whereNot('decisions.status', 'superseded');
      return projectSlug ? b.where('decisions.project_slug', projectSlug) : b;
    };
    const hits = await nearestNeighbours(db, 'decisions', filtered, vector, k);
    const rows: DecisionRow[] = await db('decisions').select(DECISION_COLUMNS).where('account_id', accountId).whereIn('id', hits.map((h) => h.id));
    return withScores(hits, rows);
  },

  async activeForProject(db: Knex, accountId: string, projectSlug: string) {
    return db('decisions')
      .where({ account_id: accountId, project_slug: projectSlug, status: 'active' })
      .whereNull('deleted_at')
      .orderBy('created_at', 'desc')
      .select('id', 'title', 'status', 'rationale', 'created_at') as Promise<
      Array<{ id: string; title: string; status: string; rationale: string; created_at: Date }>
    >;
  },
};
