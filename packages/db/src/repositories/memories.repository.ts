import type { Knex } from 'knex';
import { byScore, explainNearest, nearestNeighbours } from '../nearest';
import type { CommonWords } from '../common-words';
import { bm25Candidates } from '../keyword-ranking';
import type { EmbeddingStatus, MemoryType, Tier, Visibility } from '@ams/vocabulary';
import { Page, PageParams, paginate } from '../pagination';
import { prepared } from '../prepared-statements';
import { dimensionsOf, vectorMatch, type BoundVector } from '../vector-column';
import { excludeExpired } from '../memory-expiry';

/** A memory row as read back: never the vector or the tsvector (large, and no caller needs them). */
export interface MemoryRow {
  account_id: string;
  id: string;
  agent_id: string;
  content: string;
  metadata: Record<string, unknown>;
  memory_type: MemoryType;
  visibility: Visibility;
  importance: number;
  tier: Tier;
  tier_explicit: boolean;
  archived: boolean;
  session_id: string | null;
  project_id: string | null;
  client_id: string | null;
  embedding_model: string | null;
  embedding_status: EmbeddingStatus;
  embedding_error: string | null;
  embedding_attempts: number;
  /** embedding_attempts when the memory was last retried by hand: attempts made since = the difference. */
  embedding_attempts_base: number;
  dedup_threshold: number | null;
  webhook_url: string | null;
  /** A v2 create set aside because its embedding matched this memory (dedup). */
  duplicate_of: string | null;
  /** When the memory became true (null: since it was recorded). */
  valid_from: Date | null;
  /** When it stopped being true (null: still true); set by a supersede. */
  valid_until: Date | null;
  /** The memory this one replaced, and the one that replaced it. */
  supersedes: string | null;
  superseded_by: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  /** Counts the memory's versions (memory_versions); bumped by the history trigger. */
  version: number;
  /** When reads stop returning it and the expiry sweep deletes it; null: never. */
  expires_at: Date | null;
}

export interface MemoryListFilters {
  agentId?: string | null;
  memoryType?: string;
  tier?: string;
  sessionId?: string;
  projectId?: string;
  archived?: boolean;
  visibility?: string;
  embeddingStatus?: string;
  /** Expired memories too (audits); by default they are left out. */
  includeExpired?: boolean;
  /** Only memories expiring before this ("what expires soon"). */
  expiresBefore?: Date;
}

export const MEMORY_COLUMNS = [
  'account_id', 'id', 'agent_id', 'content', 'metadata', 'memory_type', 'visibility', 'importance', 'tier',
  'tier_explicit', 'archived', 'session_id', 'project_id', 'client_id', 'embedding_model', 'embedding_status',
  'embedding_error', 'embedding_attempts', 'embedding_attempts_base', 'dedup_threshold', 'webhook_url', 'duplicate_of', 'valid_from', 'valid_until', 'supersedes', 'superseded_by', 'created_at', 'updated_at', 'deleted_at',
  'version', 'expires_at',
].map((c) => `memories.${c}`);

/** The same columns unqualified, for RETURNING. */
export const MEMORY_RETURNING = MEMORY_COLUMNS.map((c) => c.replace('memories.', ''));

export interface NewMemory {
  accountId: string;
  agentId: string;
  /**
   * The agent came from a reference (a name or id, maybe the process's cache, agent-id-cache.ts):
   * the INSERT names it through live_agent(), so the row is refused (isAgentGone) when the agent
   * has been deleted since. A key's bound agent is stored as it is.
   */
  agentMustBeLive?: boolean;
  content: string;
  metadata: Record<string, unknown>;
  memoryType: MemoryType;
  visibility: Visibility;
  importance: number;
  tier: Tier;
  tierExplicit: boolean;
  sessionId: string | null;
  projectId: string | null;
  clientId?: string | null;
  /** Null while a v2 memory waits for the worker. */
  embedding: BoundVector | null;
  embeddingModel: string | null;
  embeddingStatus: EmbeddingStatus;
  dedupThreshold?: number | null;
  webhookUrl?: string | null;
  /** Defaults to now; test factories and imports place memories in time. */
  createdAt?: Date;
  /** Defaults to createdAt (an import carries its own). */
  updatedAt?: Date;
  /** Defaults to false (an import carries its own). */
  archived?: boolean;
  /** null: never expires. Absent: the agent's default TTL for the memory's type, if it has one (agentDefaultExpiry). */
  expiresAt?: Date | null;
  /** Defaults to 1; an import carries the version it exported. */
  version?: number;
  validFrom?: Date | null;
  validUntil?: Date | null;
  /** A supersede: the memory this one replaces (same account, checked by the caller). */
  supersedes?: string | null;
}

/**
 * When a new memory of this agent and type expires by default: now plus the agent's
 * config.default_ttl_seconds for the type (else its `default` entry); null when it has neither.
 * Evaluated inside the insert, so a create pays no extra round trip for it: a function (migration
 * 061), as Citus refuses a subquery within an INSERT.
 */
function agentDefaultExpiry(db: Knex, m: Pick<NewMemory, 'accountId' | 'agentId' | 'memoryType'>): Knex.Raw {
  return db.raw(`agent_default_expiry(?::uuid, ?::uuid, ?)`, [m.accountId, m.agentId, m.memoryType]);
}

/**
 * The columns of a new memory's row (`id` when the caller chose it, else the database's default).
 * With `db`, an absent expiresAt becomes the agent's default (agentDefaultExpiry); without, none.
 */
export function memoryInsertRow(m: NewMemory & { id?: string }, db?: Knex) {
  return {
    ...(m.id ? { id: m.id } : {}),
    account_id: m.accountId,
    agent_id: m.agentMustBeLive && db ? db.raw('live_agent(?::uuid, ?::uuid)', [m.accountId, m.agentId]) : m.agentId,
    content: m.content,
    metadata: m.metadata,
    memory_type: m.memoryType,
    visibility: m.visibility,
    importance: m.importance,
    tier: m.tier,
    tier_explicit: m.tierExplicit,
    session_id: m.sessionId,
    project_id: m.projectId,
    client_id: m.clientId ?? null,
    embedding: m.embedding,
    embedding_model: m.embeddingModel,
    embedding_status: m.embeddingStatus,
    dedup_threshold: m.dedupThreshold ?? null,
    webhook_url: m.webhookUrl ?? null,
    created_at: m.createdAt,
    updated_at: m.updatedAt ?? m.createdAt,
    archived: m.archived,
    expires_at: m.expiresAt !== undefined ? m.expiresAt : db ? agentDefaultExpiry(db, m) : null,
    ...(m.version !== undefined ? { version: m.version } : {}),
    valid_from: m.validFrom ?? null,
    valid_until: m.validUntil ?? null,
    supersedes: m.supersedes ?? null,
  };
}

export interface MemoryPatch {
  content?: string;
  embedding?: BoundVector;
  embeddingModel?: string;
  metadata?: Record<string, unknown>;
  importance?: number;
  tier?: Tier;
  tierExplicit?: boolean;
  memoryType?: MemoryType;
  visibility?: Visibility;
  archived?: boolean;
  /** null: never expires. */
  expiresAt?: Date | null;
  /** Replace metadata instead of merging into it (restoring a version). */
  replaceMetadata?: boolean;
  /** Also a deleted memory, which comes back (restoring a version). */
  revive?: boolean;
  /** Session and project (restoring a version). */
  sessionId?: string | null;
  projectId?: string | null;
  /** null clears. */
  validFrom?: Date | null;
  validUntil?: Date | null;
  supersededBy?: string;
}

/**
 * Time-aware recall (docs/api.md, "Time-aware recall"). Without `asOf`: what is true now. With it:
 * what had been recorded by then and was true then. `includeSuperseded` keeps memories whose
 * validity has ended (superseded ones). Absent: nothing but what is true now.
 */
interface Validity {
  asOf?: Date;
  includeSuperseded?: boolean;
}

/**
 * The one validity filter of every search leg (semantic, keyword, graph, context). Without as_of it
 * is two NULL checks on the row already read (no index, no join), so the hot path pays next to nothing.
 */
function validityWhere(v: Validity | undefined, out: Where): void {
  const at = v?.asOf;
  if (at) out.add('memories.created_at <= ?', [at]);
  const point = at ? '?::timestamptz' : 'now()';
  const bound = at ? [at] : [];
  out.add(`(memories.valid_from IS NULL OR memories.valid_from <= ${point})`, bound);
  if (!v?.includeSuperseded) out.add(`(memories.valid_until IS NULL OR memories.valid_until > ${point})`, bound);
}

/** What every search mode filters on; all optional but the account. */
export interface SearchFilters {
  accountId: string;
  agentId?: string | null;
  tier?: Tier;
  minImportance?: number;
  includeConfidential: boolean;
  includeArchived: boolean;
  metadataFilter?: MetadataCondition[];
  embeddingModel: string;
  projectId?: string;
  sessionId?: string;
  /** Only memories tied to no session (or marked metadata.scope = long-term). */
  longTermOnly?: boolean;
  /** Expired memories too (audits); by default they are left out. */
  includeExpired?: boolean;
  validity?: Validity;
}

/** One compiled metadata_filter condition (validated at the edge). */
export type MetadataCondition =
  | { key: string; op: '$eq' | '$ne'; value: unknown }
  | { key: string; op: '$in' | '$nin'; value: unknown[] }
  | { key: string; op: '$gt' | '$gte' | '$lt' | '$lte'; value: number | string }
  | { key: string; op: '$exists'; value: boolean };

const COMPARATORS = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

/**
 * `key` holds one of `values` (containment, as $eq): one bind parameter per kind, however long the
 * list. A scalar is contained exactly when it is the stored value, so scalars are one hashed lookup
 * of the row's value (the list is hashed once per statement); objects and arrays are contained in
 * part, so each is a containment test of its own.
 */
function inList(key: string, values: unknown[]): [string, string[]] {
  const scalars = values.filter((v) => v === null || typeof v !== 'object');
  const nested = values.filter((v) => v !== null && typeof v === 'object');
  const parts: string[] = [];
  const bindings: string[] = [];
  if (scalars.length > 0) {
    parts.push(`coalesce(memories.metadata -> ?::text IN (SELECT jsonb_array_elements(?::jsonb)), false)`);
    bindings.push(key, JSON.stringify(scalars));
  }
  if (nested.length > 0) {
    parts.push(`EXISTS (SELECT 1 FROM jsonb_array_elements(?::jsonb) AS v(val) WHERE memories.metadata @> jsonb_build_object(?::text, v.val))`);
    bindings.push(JSON.stringify(nested), key);
  }
  return [parts.length > 0 ? `(${parts.join(' OR ')})` : 'false', bindings];
}

function metadataCondition(c: MetadataCondition): [string, unknown[]] {
  const contains = (v: unknown) => JSON.stringify({ [c.key]: v });
  switch (c.op) {
    case '$eq':
      return ['memories.metadata @> ?::jsonb', [contains(c.value)]];
    case '$ne':
      return ['NOT (memories.metadata @> ?::jsonb)', [contains(c.value)]];
    case '$in':
      return inList(c.key, c.value);
    case '$nin': {
      const [sql, bindings] = inList(c.key, c.value);
      return [`NOT ${sql}`, bindings];
    }
    case '$exists':
      return [`${c.value ? '' : 'NOT '}jsonb_exists(memories.metadata, ?)`, [c.key]];
    default: {
      const op = COMPARATORS[c.op];
      // Numbers compare numerically and strings lexically; a value of the other JSON type never matches.
      // CASE, not AND: PostgreSQL may evaluate an AND's operands in any order, and the cast fails on a string.
      if (typeof c.value === 'number') {
        return [`CASE WHEN jsonb_typeof(memories.metadata -> ?) = 'number' THEN (memories.metadata -> ?)::numeric ${op} ?::numeric ELSE false END`, [c.key, c.key, c.value]];
      }
      return [`CASE WHEN jsonb_typeof(memories.metadata -> ?) = 'string' THEN (memories.metadata ->> ?) ${op} ? ELSE false END`, [c.key, c.key, c.value]];
    }
  }
}

/** A WHERE clause's conditions (ANDed) and their bindings, in order. */
class Where {
  readonly conditions: string[] = [];
  readonly bindings: unknown[] = [];
  add(condition: string, bindings: unknown[] = []): void {
    this.conditions.push(condition);
    for (const b of bindings) this.bindings.push(b);
  }
  get sql(): string {
    return this.conditions.join(' AND ');
  }
}

/** Searchable rows: the keyword leg's candidate set. */
export const keywordSet = (f: SearchFilters) => (db: Knex) => searchable(db, f);

/** Searchable rows embedded with the query's model: the semantic leg's candidate set. */
export const semanticSet = (f: SearchFilters) => (db: Knex) => searchable(db, f, f.embeddingModel);

/**
 * Live, searchable memories matching every filter: the condition (`?` bindings) and its bindings,
 * built as text with no query builder (a search's hot statement is assembled from it as text:
 * searchHitsRepository.nearest), and the rows as a query for the other legs (searchable).
 */
export function searchableWhere(f: SearchFilters, embeddingModel?: string): { sql: string; bindings: unknown[] } {
  const w = new Where();
  w.add('memories.account_id = ?', [f.accountId]);
  w.add('memories.deleted_at IS NULL');
  w.add("memories.embedding_status = 'ready'");
  if (f.agentId) w.add('memories.agent_id = ?', [f.agentId]);
  if (f.tier) w.add('memories.tier = ?', [f.tier]);
  if (f.minImportance !== undefined) w.add('memories.importance >= ?', [f.minImportance]);
  if (!f.includeConfidential) w.add("memories.visibility = 'private'");
  if (!f.includeArchived) w.add('memories.archived = false');
  for (const c of f.metadataFilter ?? []) w.add(...metadataCondition(c));
  if (f.projectId) w.add('memories.project_id = ?', [f.projectId]);
  if (f.sessionId) w.add('memories.session_id = ?', [f.sessionId]);
  if (f.longTermOnly) w.add(`(memories.session_id IS NULL OR memories.metadata @> '{"scope":"long-term"}'::jsonb)`);
  if (!f.includeExpired) w.add('(memories.expires_at IS NULL OR memories.expires_at > now())');
  validityWhere(f.validity, w);
  if (embeddingModel !== undefined) w.add('memories.embedding_model = ?', [embeddingModel]);
  return w;
}

function searchable(db: Knex, f: SearchFilters, embeddingModel?: string): Knex.QueryBuilder {
  const w = searchableWhere(f, embeddingModel);
  return db('memories').whereRaw(w.sql, w.bindings as Knex.RawBinding[]);
}

export interface Candidate {
  id: string;
  score: number;
}

export const memoriesRepository = {
  /** One INSERT for the whole batch. */
  async insertMany(db: Knex, items: NewMemory[]): Promise<MemoryRow[]> {
    if (items.length === 0) return [];
    return db('memories').insert(items.map((m) => memoryInsertRow(m, db))).returning(MEMORY_RETURNING);
  },

  async findLive(db: Knex, accountId: string, id: string): Promise<MemoryRow | undefined> {
    return db('memories').select(MEMORY_COLUMNS).where({ account_id: accountId, id }).whereNull('deleted_at').first();
  },

  /** A live memory, locked until the transaction ends (a supersede's old memory). */
  async findLiveForUpdate(trx: Knex, accountId: string, id: string): Promise<MemoryRow | undefined> {
    return trx('memories').select(MEMORY_COLUMNS).where({ account_id: accountId, id }).whereNull('deleted_at').forUpdate().first();
  },

  /** valid_from and created_at of each of `ids` (recency weighting of candidates that carry no row). */
  async timesOf(db: Knex, accountId: string, ids: string[]): Promise<Map<string, { valid_from: Date | null; created_at: Date }>> {
    if (ids.length === 0) return new Map();
    const rows: Array<{ id: string; valid_from: Date | null; created_at: Date }> = await db('memories')
      .select('id', 'valid_from', 'created_at')
      .where('account_id', accountId)
      .whereIn('id', ids);
    return new Map(rows.map((r) => [r.id, r]));
  },

  /** Deleted or not: for restore. */
  async findAny(db: Knex, accountId: string, id: string): Promise<MemoryRow | undefined> {
    return db('memories').select(MEMORY_COLUMNS).where({ account_id: accountId, id }).first();
  },

  /** Rows in the order of `ids`; one query. */
  async findLiveByIds(db: Knex, accountId: string, ids: string[]): Promise<MemoryRow[]> {
    if (ids.length === 0) return [];
    const rows: MemoryRow[] = await db('memories')
      .select(MEMORY_COLUMNS)
      .where('account_id', accountId)
      .whereIn('id', ids)
      .whereNull('deleted_at');
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  },

  async list(
    db: Knex,
    accountId: string,
    filters: MemoryListFilters,
    page: PageParams,
  ): Promise<Page<MemoryRow>> {
    const q = db('memories').where('memories.account_id', accountId).whereNull('memories.deleted_at');
    if (filters.agentId) q.where('memories.agent_id', filters.agentId);
    if (filters.memoryType) q.where('memories.memory_type', filters.memoryType);
    if (filters.tier) q.where('memories.tier', filters.tier);
    if (filters.sessionId) q.where('memories.session_id', filters.sessionId);
    if (filters.projectId) q.where('memories.project_id', filters.projectId);
    if (filters.archived !== undefined) q.where('memories.archived', filters.archived);
    if (filters.visibility) q.where('memories.visibility', filters.visibility);
    if (filters.embeddingStatus) q.where('memories.embedding_status', filters.embeddingStatus);
    if (!filters.includeExpired) excludeExpired(q);
    if (filters.expiresBefore) q.where('memories.expires_at', '<', filters.expiresBefore);
    const result = await paginate<MemoryRow & { embedding?: unknown; content_tsv?: unknown }>(q, 'memories', page);
    return { ...result, rows: result.rows.map(({ embedding: _e, content_tsv: _t, ...row }) => row as MemoryRow) };
  },

  /** client_ids of the batch already used by the account's memories (idempotency). */
  async existingClientIds(db: Knex, accountId: string, clientIds: string[]): Promise<Map<string, string>> {
    if (clientIds.length === 0) return new Map();
    const rows: Array<{ id: string; client_id: string }> = await db('memories')
      .select('id', 'client_id')
      .where('account_id', accountId)
      .whereIn('client_id', clientIds);
    return new Map(rows.map((r) => [r.client_id, r.id]));
  },

  /** Metadata is merged (jsonb ||), never replaced. */
  async update(db: Knex, accountId: string, id: string, p: MemoryPatch): Promise<MemoryRow | undefined> {
    const set: Record<string, unknown> = { updated_at: db.fn.now() };
    if (p.content !== undefined) set.content = p.content;
    if (p.embedding !== undefined) {
      set.embedding = p.embedding;
      set.embedding_model = p.embeddingModel;
      set.embedding_status = 'ready';
      set.embedding_error = null;
    }
    if (p.metadata !== undefined)
      set.metadata = p.replaceMetadata ? db.raw('?::jsonb', [JSON.stringify(p.metadata)]) : db.raw('memories.metadata || ?::jsonb', [JSON.stringify(p.metadata)]);
    if (p.importance !== undefined) set.importance = p.importance;
    if (p.tier !== undefined) set.tier = p.tier;
    if (p.tierExplicit !== undefined) set.tier_explicit = p.tierExplicit;
    if (p.memoryType !== undefined) set.memory_type = p.memoryType;
    if (p.visibility !== undefined) set.visibility = p.visibility;
    if (p.archived !== undefined) set.archived = p.archived;
    if (p.expiresAt !== undefined) set.expires_at = p.expiresAt;
    if (p.sessionId !== undefined) set.session_id = p.sessionId;
    if (p.projectId !== undefined) set.project_id = p.projectId;
    if (p.validFrom !== undefined) set.valid_from = p.validFrom;
    if (p.validUntil !== undefined) set.valid_until = p.validUntil;
    if (p.supersededBy !== undefined) set.superseded_by = p.supersededBy;
    const q = db('memories').where({ account_id: accountId, id });
    if (p.revive) set.deleted_at = null;
    else q.whereNull('deleted_at');
    const [row] = await q
      .update(set)
      .returning(MEMORY_RETURNING);
    return row as MemoryRow | undefined;
  },

  async softDelete(db: Knex, accountId: string, id: string): Promise<MemoryRow | undefined> {
    const [row] = await db('memories')
      .where({ account_id: accountId, id })
      .whereNull('deleted_at')
      .update({ deleted_at: db.fn.now(), updated_at: db.fn.now() })
      .returning(MEMORY_RETURNING);
    return row as MemoryRow | undefined;
  },

  /**
   * Undeletes a deleted memory, or revives one whose expiry passed before the sweep deleted it: an
   * expiry that has passed is cleared (else the memory would stay out of every read).
   * nullif(x, least(x, now())) is NULL when x has passed, else x (Citus refuses now() inside CASE).
   */
  async restore(db: Knex, accountId: string, id: string): Promise<MemoryRow | undefined> {
    const [row] = await db('memories')
      .where({ account_id: accountId, id })
      .where((q) => q.whereNotNull('deleted_at').orWhere('expires_at', '<=', db.fn.now()))
      .update({ deleted_at: null, updated_at: db.fn.now(), expires_at: db.raw('nullif(expires_at, least(expires_at, now()))') })
      .returning(MEMORY_RETURNING);
    return row as MemoryRow | undefined;
  },

  /** Nearest live, embedded memory of the same agent (current model) by cosine similarity, for dedup. */
  async nearestOfAgent(
    db: Knex,
    accountId: string,
    agentId: string,
    vector: BoundVector,
    model: string,
  ): Promise<{ id: string; similarity: number } | undefined> {
    const { expr, where } = vectorMatch('memories', dimensionsOf(vector));
    const row = await db('memories')
      .select('id', db.raw(`1 - (${expr} <=> ?::vector) AS similarity`, [vector]))
      .where({ account_id: accountId, agent_id: agentId, embedding_status: 'ready', embedding_model: model })
      .whereNull('deleted_at')
      .whereRaw(where)
      .orderByRaw(`${expr} <=> ?::vector`, [vector])
      .first();
    return row ? { id: row.id, similarity: Number(row.similarity) } : undefined;
  },

  /**
   * Serialises dedup checks per agent until the transaction ends (pg_advisory_xact_lock): a check
   * and the insert or store it guards cannot interleave with another's for the same agent. Keys are
   * taken in one sorted order, so transactions locking several agents cannot deadlock.
   */
  async lockAgentsForDedup(trx: Knex, agents: Array<{ accountId: string; agentId: string }>): Promise<void> {
    const keys = [...new Set(agents.map((a) => `dedup:${a.accountId}:${a.agentId}`))].sort();
    for (const key of keys) await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
  },

  /** Top-k by cosine similarity: the filtered HNSW scan with its exact fallback (see nearestNeighbours). */
  async semanticCandidates(db: Knex, f: SearchFilters, vector: BoundVector, k: number): Promise<Candidate[]> {
    return nearestNeighbours(db, 'memories', semanticSet(f), vector, k);
  },

  /** The plan PostgreSQL picks for the semantic query (operators check the HNSW index is used). */
  async explainSemantic(db: Knex, f: SearchFilters, vector: BoundVector, k: number): Promise<string> {
    return explainNearest(db, 'memories', semanticSet(f), vector, k);
  },

  /**
   * PostgreSQL full text (GIN on content_tsv), ranked BM25-style (see keyword-ranking.ts); scores
   * 0..1. `commonWords`: the process's memory of common words (the caller owns it).
   */
  async keywordCandidates(db: Knex, commonWords: CommonWords, f: SearchFilters, text: string, k: number): Promise<Candidate[]> {
    return bm25Candidates(db, commonWords, keywordSet(f), text, k);
  },

  /**
   * Memories linked to live entities whose (lower-cased) name is one of `names` — the entity-graph
   * leg of hybrid search. Score: links matched, weighted by relevance.
   */
  async graphCandidates(db: Knex, f: SearchFilters, names: string[], k: number): Promise<Candidate[]> {
    if (names.length === 0) return [];
    const rows: Candidate[] = await prepared(
      db,
      searchable(db, f)
        .join('entity_memory_links as l', function joinLinks() {
          this.on('l.account_id', 'memories.account_id').andOn('l.memory_id', 'memories.id');
        })
        .join('entities as e', function joinEntities() {
          this.on('e.account_id', 'l.account_id').andOn('e.id', 'l.entity_id');
        })
        .whereNull('e.deleted_at')
        .whereRaw('lower(e.name) = ANY (?::text[])', [names])
        .groupBy('memories.id')
        .select('memories.id', db.raw('sum(l.relevance_score) AS score'))
        .orderBy('score', 'desc')
        .limit(k),
    );
    return byScore(rows);
  },
};
