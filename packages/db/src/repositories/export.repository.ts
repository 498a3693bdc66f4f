import type { Knex } from 'knex';

/** The record kinds of an export, in the order they are written (referenced kinds first). */
export const EXPORT_KINDS = ['agent', 'project', 'session', 'memory', 'memory_version', 'entity', 'entity_link', 'decision', 'pattern', 'pattern_adoption', 'webhook'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

export interface ExportFilters {
  accountId: string;
  /** Only this agent's data (and what it references). */
  agentId?: string;
  /** Only this project's data. */
  project?: { id: string; slug: string };
  createdAfter?: Date;
  createdBefore?: Date;
  includeVectors: boolean;
}

/** Where the previous page stopped: created_at as PostgreSQL's own text (microseconds kept) and id. */
export interface ExportCursor {
  ts: string;
  key: string;
}

export type ExportRow = Record<string, unknown> & { cursor_ts: string; cursor_key: string };

const A = (table: string) => (column: string) => `${table}.${column}`;

/** Per kind: the table, the columns of a record, and how each filter narrows it. */
function baseQuery(db: Knex, kind: ExportKind, f: ExportFilters): { q: Knex.QueryBuilder; table: string; key: string } {
  const account = f.accountId;
  const vector = (t: string) => (f.includeVectors ? [db.raw(`${t}.embedding::text as embedding`)] : []);
  switch (kind) {
    case 'agent': {
      const c = A('agents');
      const q = db('agents')
        .select(['id', 'name', 'description', 'config', 'metadata', 'last_active_at', 'created_at', 'updated_at'].map(c))
        .where(c('account_id'), account)
        .whereNull(c('deleted_at'));
      if (f.agentId) q.where(c('id'), f.agentId);
      if (f.project)
        q.where((w) =>
          w
            .whereExists(db('memories').select(1).whereRaw('memories.account_id = agents.account_id AND memories.agent_id = agents.id').where('memories.project_id', f.project!.id).whereNull('memories.deleted_at'))
            .orWhereExists(db('sessions').select(1).whereRaw('sessions.account_id = agents.account_id AND sessions.agent_id = agents.id').where('sessions.project', f.project!.slug).whereNull('sessions.deleted_at'))
            .orWhereExists(db('decisions').select(1).whereRaw('decisions.account_id = agents.account_id AND decisions.agent_id = agents.id').where('decisions.project_slug', f.project!.slug).whereNull('decisions.deleted_at')),
        );
      return { q, table: 'agents', key: 'agents.id' };
    }
    case 'project': {
      const c = A('projects');
      const q = db('projects')
        .select(['id', 'slug', 'name', 'description', 'stack', 'repo_url', 'metadata', 'created_at', 'updated_at'].map(c))
        .where(c('account_id'), account)
        .whereNull(c('deleted_at'));
      if (f.project) q.where(c('id'), f.project.id);
      if (f.agentId)
        q.whereExists(db('memories').select(1).whereRaw('memories.account_id = projects.account_id AND memories.project_id = projects.id').where('memories.agent_id', f.agentId).whereNull('memories.deleted_at'));
      return { q, table: 'projects', key: 'projects.id' };
    }
    case 'session': {
      const c = A('sessions');
      const q = db('sessions')
        .select(['id', 'agent_id', 'external_id', 'project', 'status', 'title', 'summary', 'summary_generated_at', 'metadata', 'started_at', 'ended_at', 'created_at', 'updated_at'].map(c))
        .where(c('account_id'), account)
        .whereNull(c('deleted_at'));
      if (f.agentId) q.where(c('agent_id'), f.agentId);
      if (f.project) q.where(c('project'), f.project.slug);
      return { q, table: 'sessions', key: 'sessions.id' };
    }
    case 'memory': {
      const c = A('memories');
      const q = db('memories')
        .join('agents', (j) => j.on('agents.account_id', 'memories.account_id').andOn('agents.id', 'memories.agent_id'))
        .select([
          ...['id', 'agent_id'].map(c),
          'agents.name as agent',
          ...['content', 'metadata', 'memory_type', 'visibility', 'importance', 'tier', 'tier_explicit', 'archived', 'session_id', 'project_id', 'client_id', 'embedding_model', 'embedding_status', 'created_at', 'updated_at', 'version', 'expires_at'].map(c),
          ...vector('memories'),
        ])
        .where(c('account_id'), account)
        .whereNull(c('deleted_at'));
      if (f.agentId) q.where(c('agent_id'), f.agentId);
      if (f.project) q.where(c('project_id'), f.project.id);
      return { q, table: 'memories', key: 'memories.id' };
    }
    case 'memory_version': {
      // The history of the memories exported, each version as recorded.
      const c = A('v');
      const q = db('memory_versions as v')
        .join('memories as m', (j) => j.on('m.account_id', 'v.account_id').andOn('m.id', 'v.memory_id'))
        .select(['memory_id', 'version', 'change', 'changed_fields', 'before', 'state', 'actor_key_id', 'actor_agent_id', 'created_at'].map(c))
        .where(c('account_id'), account)
        .whereNull('m.deleted_at');
      if (f.agentId) q.where('m.agent_id', f.agentId);
      if (f.project) q.where('m.project_id', f.project.id);
      return { q, table: 'v', key: "v.memory_id::text || '/' || lpad(v.version::text, 10, '0')" };
    }
    case 'entity': {
      const c = A('entities');
      const q = db('entities')
        .select(['id', 'name', 'entity_type', 'metadata', 'created_at', 'updated_at'].map(c))
        .where(c('account_id'), account)
        .whereNull(c('deleted_at'));
      if (f.agentId || f.project) q.whereExists(linkedMemories(db, f, 'entities.id'));
      return { q, table: 'entities', key: 'entities.id' };
    }
    case 'entity_link': {
      const c = A('l');
      const q = db('entity_memory_links as l')
        .join('memories as m', (j) => j.on('m.account_id', 'l.account_id').andOn('m.id', 'l.memory_id'))
        .join('entities as e', (j) => j.on('e.account_id', 'l.account_id').andOn('e.id', 'l.entity_id'))
        .select(['entity_id', 'memory_id', 'relationship', 'relevance_score', 'created_at'].map(c))
        .where(c('account_id'), account)
        .whereNull('m.deleted_at')
        .whereNull('e.deleted_at');
      if (f.agentId) q.where('m.agent_id', f.agentId);
      if (f.project) q.where('m.project_id', f.project.id);
      return { q, table: 'l', key: "l.entity_id::text || '/' || l.memory_id::text || '/' || l.relationship" };
    }
    case 'decision': {
      const c = A('decisions');
      const q = db('decisions')
        .select([
          ...['id', 'agent_id', 'session_id', 'project_slug', 'title', 'rationale', 'alternatives', 'status', 'superseded_by', 'tags', 'metadata', 'embedding_model', 'created_at', 'updated_at'].map(c),
          ...vector('decisions'),
        ])
        .where(c('account_id'), account)
        .whereNull(c('deleted_at'));
      if (f.agentId) q.where(c('agent_id'), f.agentId);
      if (f.project) q.where(c('project_slug'), f.project.slug);
      return { q, table: 'decisions', key: 'decisions.id' };
    }
    case 'pattern': {
      const c = A('patterns');
      const q = db('patterns')
        .select([
          ...['id', 'title', 'description', 'scope', 'category', 'tags', 'example_code', 'source_project_id', 'metadata', 'adoption_count', 'embedding_model', 'created_at', 'updated_at'].map(c),
          ...vector('patterns'),
        ])
        .where(c('account_id'), account)
        .whereNull(c('deleted_at'));
      // Patterns belong to no agent.
      if (f.agentId) q.whereRaw('false');
      if (f.project)
        q.where((w) =>
          w.where(c('source_project_id'), f.project!.id).orWhereExists(
            db('pattern_adoptions').select(1).whereRaw('pattern_adoptions.account_id = patterns.account_id AND pattern_adoptions.pattern_id = patterns.id').where('pattern_adoptions.project_id', f.project!.id),
          ),
        );
      return { q, table: 'patterns', key: 'patterns.id' };
    }
    case 'pattern_adoption': {
      const c = A('a');
      const q = db('pattern_adoptions as a')
        .join('patterns as p', (j) => j.on('p.account_id', 'a.account_id').andOn('p.id', 'a.pattern_id'))
        .join('projects as pr', (j) => j.on('pr.account_id', 'a.account_id').andOn('pr.id', 'a.project_id'))
        .select(['pattern_id', 'project_id', 'created_at'].map(c))
        .where(c('account_id'), account)
        .whereNull('p.deleted_at')
        .whereNull('pr.deleted_at');
      if (f.agentId) q.whereRaw('false');
      if (f.project) q.where(c('project_id'), f.project.id);
      return { q, table: 'a', key: "a.pattern_id::text || '/' || a.project_id::text" };
    }
    case 'webhook': {
      const c = A('webhooks');
      const q = db('webhooks')
        .select([...['id', 'url', 'event_types', 'enabled', 'disabled_reason', 'description', 'created_at', 'updated_at'].map(c), db.raw('(webhooks.secret IS NOT NULL OR webhooks.secret_sealed IS NOT NULL) as has_secret')])
        .where(c('account_id'), account);
      // Webhooks belong to the account, not to an agent or a project.
      if (f.agentId || f.project) q.whereRaw('false');
      return { q, table: 'webhooks', key: 'webhooks.id' };
    }
  }
}

/** Links from the entity to a memory inside the agent/project filter. */
function linkedMemories(db: Knex, f: ExportFilters, entityIdColumn: string): Knex.QueryBuilder {
  const q = db('entity_memory_links as fl')
    .join('memories as fm', (j) => j.on('fm.account_id', 'fl.account_id').andOn('fm.id', 'fl.memory_id'))
    .select(1)
    .whereRaw(`fl.account_id = ? AND fl.entity_id = ${entityIdColumn}`, [f.accountId])
    .whereNull('fm.deleted_at');
  if (f.agentId) q.where('fm.agent_id', f.agentId);
  if (f.project) q.where('fm.project_id', f.project.id);
  return q;
}

export const exportRepository = {
  /**
   * One page of a kind, in creation order, after `after`: keyset on (created_at, key), so each page
   * costs the same however far into the account it is and memory stays bounded by the page size.
   * Agents and projects are reference data: the time filter leaves them whole.
   */
  async page(db: Knex, kind: ExportKind, f: ExportFilters, after: ExportCursor | undefined, limit: number): Promise<ExportRow[]> {
    const { q, table, key } = baseQuery(db, kind, f);
    const created = `${table}.created_at`;
    if (kind !== 'agent' && kind !== 'project') {
      if (f.createdAfter) q.where(created, '>', f.createdAfter);
      if (f.createdBefore) q.where(created, '<', f.createdBefore);
    }
    if (after) q.whereRaw(`(${created}, ${key}) > (?::timestamptz, ?)`, [after.ts, after.key]);
    return q
      .select(db.raw(`${created}::text as cursor_ts`), db.raw(`${key} as cursor_key`))
      .orderByRaw(`${created} asc, ${key} asc`)
      .limit(limit) as Promise<ExportRow[]>;
  },
};
