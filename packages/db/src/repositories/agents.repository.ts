import type { Knex } from 'knex';
import { agentIdCacheFor } from '../agent-id-cache';
import { Page, PageParams, paginate } from '../pagination';

export interface AgentRow {
  account_id: string;
  id: string;
  name: string;
  description: string | null;
  config: Record<string, unknown>;
  metadata: Record<string, unknown>;
  last_active_at: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  client_key: string | null;
}

export interface AgentCounts {
  memory_count: number;
  session_count: number;
  project_count: number;
}

/** An agent's last_active_at is written at most once a minute: the SQL test of `table` (or its alias). */
export const activityIsStale = (table: string) => `(${table}.last_active_at IS NULL OR ${table}.last_active_at < now() - interval '1 minute')`;

export const agentsRepository = {
  async findLive(db: Knex, accountId: string, id: string): Promise<AgentRow | undefined> {
    return db('agents').where({ account_id: accountId, id }).whereNull('deleted_at').first();
  },

  /** The live agent of that name, else the one created with that client key (a name wins). */
  async findLiveByName(db: Knex, accountId: string, name: string): Promise<AgentRow | undefined> {
    return db('agents')
      .where({ account_id: accountId })
      .whereNull('deleted_at')
      .where((w) => w.where('name', name).orWhere('client_key', name))
      .orderByRaw('(name = ?) DESC', [name])
      .first();
  },

  /** The account's live agent of that name (or client key), created if missing; safe when callers race. */
  async ensureByName(db: Knex, accountId: string, name: string): Promise<AgentRow> {
    const existing = await agentsRepository.findLiveByName(db, accountId, name);
    if (existing) return existing;
    await db.raw(
      `INSERT INTO agents (account_id, name) VALUES (?, ?)
       ON CONFLICT (account_id, name) WHERE deleted_at IS NULL DO NOTHING`,
      [accountId, name],
    );
    const row = await agentsRepository.findLiveByName(db, accountId, name);
    if (!row) throw new Error(`agent ${name} vanished after upsert`);
    return row;
  },

  /** Throws the unique violation (agents_account_name_key, agents_account_client_key_key) on a taken name or key. */
  async insert(
    db: Knex,
    a: { accountId: string; name: string; description: string | null; metadata: Record<string, unknown>; clientKey?: string | null; config?: Record<string, unknown> },
  ): Promise<AgentRow> {
    const [row] = await db('agents')
      .insert({ account_id: a.accountId, name: a.name, description: a.description, metadata: a.metadata, client_key: a.clientKey ?? null, ...(a.config ? { config: a.config } : {}) })
      .returning('*');
    return row as AgentRow;
  },

  async list(db: Knex, accountId: string, page: PageParams): Promise<Page<AgentRow>> {
    return paginate<AgentRow>(db('agents').where('agents.account_id', accountId).whereNull('agents.deleted_at'), 'agents', page);
  },

  /** Metadata and config merged (jsonb ||, top-level members). */
  async update(
    db: Knex,
    accountId: string,
    id: string,
    p: { name?: string; description?: string | null; metadata?: Record<string, unknown>; config?: Record<string, unknown> },
  ): Promise<AgentRow | undefined> {
    const set: Record<string, unknown> = { updated_at: db.fn.now() };
    if (p.config !== undefined) set.config = db.raw('agents.config || ?::jsonb', [JSON.stringify(p.config)]);
    if (p.name !== undefined) set.name = p.name;
    if (p.description !== undefined) set.description = p.description;
    if (p.metadata !== undefined) set.metadata = db.raw('agents.metadata || ?::jsonb', [JSON.stringify(p.metadata)]);
    // A rename: references to the agent are read again (this process now, others within AGENT_CACHE_MS).
    if (p.name !== undefined) agentIdCacheFor(db).forgetAgent(accountId, id);
    const [row] = await db('agents').where({ account_id: accountId, id }).whereNull('deleted_at').update(set).returning('*');
    return row as AgentRow | undefined;
  },

  /**
   * An agent wrote a memory: last_active_at is now (updated_at is the agent's own edits), to the
   * minute. A row marked within the last minute is left alone: no write and no row lock, so creates
   * of one agent do not queue behind each other's transactions on its row.
   */
  async markActive(db: Knex, accountId: string, agentIds: string[]): Promise<void> {
    const ids = [...new Set(agentIds)];
    if (ids.length === 0) return;
    await db('agents')
      .where('account_id', accountId)
      .whereIn('id', ids)
      .whereRaw(activityIsStale('agents'))
      .update({ last_active_at: db.fn.now() });
  },

  /** Soft-deletes the agent and its memories; call inside a transaction. */
  async softDeleteWithMemories(db: Knex, accountId: string, id: string): Promise<AgentRow | undefined> {
    agentIdCacheFor(db).forgetAgent(accountId, id);
    const [row] = await db('agents')
      .where({ account_id: accountId, id })
      .whereNull('deleted_at')
      .update({ deleted_at: db.fn.now(), updated_at: db.fn.now() })
      .returning('*');
    if (!row) return undefined;
    await db('memories')
      .where({ account_id: accountId, agent_id: id })
      .whereNull('deleted_at')
      .update({ deleted_at: db.fn.now(), updated_at: db.fn.now() });
    return row as AgentRow;
  },

  /** memory, session and project counts for a page of agents: one statement, not one per agent. */
  async countsFor(db: Knex, accountId: string, agentIds: string[]): Promise<Map<string, AgentCounts>> {
    const out = new Map<string, AgentCounts>();
    if (agentIds.length === 0) return out;
    const { rows } = await db.raw(
      `SELECT a.id,
              (SELECT count(*) FROM memories m WHERE m.account_id = a.account_id AND m.agent_id = a.id AND m.deleted_at IS NULL) AS memory_count,
              (SELECT count(*) FROM sessions s WHERE s.account_id = a.account_id AND s.agent_id = a.id AND s.deleted_at IS NULL) AS session_count,
              (SELECT count(DISTINCT m.project_id) FROM memories m JOIN projects p ON p.account_id = m.account_id AND p.id = m.project_id
                 WHERE m.account_id = a.account_id AND m.agent_id = a.id AND m.deleted_at IS NULL AND p.deleted_at IS NULL) AS project_count
         FROM agents a WHERE a.account_id = ? AND a.id = ANY (?::uuid[])`,
      [accountId, agentIds],
    );
    for (const r of rows) {
      out.set(r.id, { memory_count: Number(r.memory_count), session_count: Number(r.session_count), project_count: Number(r.project_count) });
    }
    return out;
  },

  /** Everything agent stats needs from memories, sessions and links, in one round trip. */
  async stats(db: Knex, accountId: string, agentId: string) {
    const { rows } = await db.raw(
      `SELECT
         count(*) FILTER (WHERE m.deleted_at IS NULL) AS total_memories,
         count(*) FILTER (WHERE m.deleted_at IS NULL AND m.created_at >= now() - interval '7 days') AS this_week,
         count(*) FILTER (WHERE m.deleted_at IS NULL AND m.created_at >= now() - interval '30 days') AS this_month,
         count(*) FILTER (WHERE m.deleted_at IS NULL AND m.tier = 'hot') AS hot,
         count(*) FILTER (WHERE m.deleted_at IS NULL AND m.tier = 'warm') AS warm,
         count(*) FILTER (WHERE m.deleted_at IS NULL AND m.tier = 'cold') AS cold,
         max(m.created_at) FILTER (WHERE m.deleted_at IS NULL) AS last_memory_at,
         (SELECT count(*) FROM sessions s WHERE s.account_id = ? AND s.agent_id = ? AND s.status = 'active' AND s.deleted_at IS NULL) AS active_sessions,
         (SELECT count(DISTINCT l.entity_id) FROM entity_memory_links l
            JOIN memories lm ON lm.account_id = l.account_id AND lm.id = l.memory_id
            JOIN entities e ON e.account_id = l.account_id AND e.id = l.entity_id
           WHERE l.account_id = ? AND lm.agent_id = ? AND lm.deleted_at IS NULL AND e.deleted_at IS NULL) AS entity_count
       FROM memories m WHERE m.account_id = ? AND m.agent_id = ?`,
      [accountId, agentId, accountId, agentId, accountId, agentId],
    );
    return rows[0] as Record<string, number | string | Date | null>;
  },
};
