import type { Knex } from 'knex';
import { Page, PageParams, paginate } from '../pagination';

export interface SessionRow {
  account_id: string;
  id: string;
  agent_id: string | null;
  external_id: string | null;
  project: string | null;
  status: 'active' | 'ended';
  title: string | null;
  summary: string | null;
  summary_generated_at: Date | null;
  metadata: Record<string, unknown>;
  started_at: Date;
  ended_at: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface NewSession {
  accountId: string;
  agentId: string | null;
  externalId: string | null;
  project: string | null;
  title: string | null;
  metadata: Record<string, unknown>;
}

const toRow = (s: NewSession) => ({
  account_id: s.accountId,
  agent_id: s.agentId,
  external_id: s.externalId,
  project: s.project,
  title: s.title,
  metadata: s.metadata,
});

export const sessionsRepository = {
  async findLive(db: Knex, accountId: string, id: string): Promise<SessionRow | undefined> {
    return db('sessions').where({ account_id: accountId, id }).whereNull('deleted_at').first();
  },

  /** Throws the unique violation (sessions_account_external_id_key) on a taken external_id. */
  async insert(db: Knex, s: NewSession): Promise<SessionRow> {
    const [row] = await db('sessions').insert(toRow(s)).returning('*');
    return row as SessionRow;
  },

  /**
   * Get-or-create by external_id, safe under concurrency: the partial unique index arbitrates, the
   * losers of the race read the winner's row.
   */
  async getOrCreate(db: Knex, s: NewSession & { externalId: string }): Promise<{ row: SessionRow; created: boolean }> {
    // A second round only if the winner was deleted between our insert and our read.
    for (let attempt = 0; ; attempt++) {
      const inserted = await db('sessions')
        .insert(toRow(s))
        .onConflict(db.raw('(account_id, external_id) WHERE deleted_at IS NULL AND external_id IS NOT NULL'))
        .ignore()
        .returning('*');
      if (inserted[0]) return { row: inserted[0] as SessionRow, created: true };
      const row: SessionRow | undefined = await db('sessions')
        .where({ account_id: s.accountId, external_id: s.externalId })
        .whereNull('deleted_at')
        .first();
      if (row || attempt >= 2) {
        if (!row) throw new Error(`session ${s.externalId} vanished during get-or-create`);
        return { row, created: false };
      }
    }
  },

  async list(
    db: Knex,
    accountId: string,
    f: { agentId?: string | null; project?: string; status?: string },
    page: PageParams,
  ): Promise<Page<SessionRow>> {
    const q = db('sessions').where('sessions.account_id', accountId).whereNull('sessions.deleted_at');
    if (f.agentId) q.where('sessions.agent_id', f.agentId);
    if (f.project) q.where('sessions.project', f.project);
    if (f.status) q.where('sessions.status', f.status);
    return paginate<SessionRow>(q, 'sessions', page);
  },

  /** Ends an active session; undefined when it was not active (already ended, or gone). */
  async end(db: Knex, accountId: string, id: string, p: { summary?: string; metadata?: Record<string, unknown> }): Promise<SessionRow | undefined> {
    const set: Record<string, unknown> = { status: 'ended', ended_at: db.fn.now(), updated_at: db.fn.now() };
    if (p.summary !== undefined) set.summary = p.summary;
    if (p.metadata !== undefined) set.metadata = db.raw('sessions.metadata || ?::jsonb', [JSON.stringify(p.metadata)]);
    const [row] = await db('sessions').where({ account_id: accountId, id, status: 'active' }).whereNull('deleted_at').update(set).returning('*');
    return row as SessionRow | undefined;
  },

  /** Updates an ended session's summary and metadata, leaving it ended (the idempotent `PUT …/end` of docs/clients.md). */
  async amendEnded(db: Knex, accountId: string, id: string, p: { summary?: string; metadata?: Record<string, unknown> }): Promise<SessionRow | undefined> {
    const set: Record<string, unknown> = { updated_at: db.fn.now() };
    if (p.summary !== undefined) set.summary = p.summary;
    if (p.metadata !== undefined) set.metadata = db.raw('sessions.metadata || ?::jsonb', [JSON.stringify(p.metadata)]);
    const [row] = await db('sessions').where({ account_id: accountId, id, status: 'ended' }).whereNull('deleted_at').update(set).returning('*');
    return row as SessionRow | undefined;
  },

  async saveSummary(db: Knex, accountId: string, id: string, summary: string): Promise<SessionRow | undefined> {
    const [row] = await db('sessions')
      .where({ account_id: accountId, id })
      .whereNull('deleted_at')
      .update({ summary, summary_generated_at: db.fn.now(), updated_at: db.fn.now() })
      .returning('*');
    return row as SessionRow | undefined;
  },

  /** Soft delete; with cascade, the session's live memories too. Call inside a transaction. */
  async softDelete(db: Knex, accountId: string, id: string, cascadeMemories: boolean): Promise<SessionRow | undefined> {
    const [row] = await db('sessions')
      .where({ account_id: accountId, id })
      .whereNull('deleted_at')
      .update({ deleted_at: db.fn.now(), updated_at: db.fn.now() })
      .returning('*');
    if (row && cascadeMemories) {
      await db('memories').where({ account_id: accountId, session_id: id }).whereNull('deleted_at').update({ deleted_at: db.fn.now(), updated_at: db.fn.now() });
    }
    return row as SessionRow | undefined;
  },

  /** Live memory counts for a page of sessions, one statement. */
  async memoryCounts(db: Knex, accountId: string, sessionIds: string[]): Promise<Map<string, number>> {
    if (sessionIds.length === 0) return new Map();
    const rows: Array<{ session_id: string; n: number }> = await db('memories')
      .where('account_id', accountId)
      .whereIn('session_id', sessionIds)
      .whereNull('deleted_at')
      .groupBy('session_id')
      .select('session_id', db.raw('count(*) AS n'));
    return new Map(rows.map((r) => [r.session_id, Number(r.n)]));
  },

  /** Names of the live agents that wrote live memories in the session. */
  async contributors(db: Knex, accountId: string, sessionId: string): Promise<string[]> {
    const rows: Array<{ name: string }> = await db('memories as m')
      .join('agents as a', function joinAgents() {
        this.on('a.account_id', 'm.account_id').andOn('a.id', 'm.agent_id');
      })
      .where({ 'm.account_id': accountId, 'm.session_id': sessionId })
      .whereNull('m.deleted_at')
      .whereNull('a.deleted_at')
      .groupBy('a.name')
      .select('a.name')
      .orderByRaw('min(m.created_at)');
    return rows.map((r) => r.name);
  },

  /**
   * The session's live memories in time order; with vectors, also each embedding (pgvector text)
   * and the model that made it, for summaries.
   */
  async memoriesOf(db: Knex, accountId: string, sessionId: string, withVectors: boolean) {
    const columns = ['id', 'content', 'created_at', ...(withVectors ? ['embedding_model', db.raw('embedding::text AS embedding')] : [])];
    return db('memories')
      .where({ account_id: accountId, session_id: sessionId })
      .whereNull('deleted_at')
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select(columns) as Promise<
      Array<{ id: string; content: string; created_at: Date; embedding_model?: string | null; embedding?: string | null }>
    >;
  },
};
