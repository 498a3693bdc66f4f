import { ApiError, toIso } from '@ams/core';
import { AgentCounts, AgentRow, agentIdCacheFor, agentsRepository, isUniqueViolation, memoryVersionsRepository, PageParams, searchEventsRepository } from '@ams/db';
import type { AccountDeps, AuthContext } from './deps';

/** Validated input (the route schema types its body with it). */
export interface CreateAgentInput {
  name: string;
  /** The caller-chosen `id` some clients send, kept as a key the agent is found by. */
  client_key?: string;
  description?: string;
  metadata: Record<string, unknown>;
  /** Beyond the spec: settings the service reads, e.g. default_ttl_seconds per memory type. */
  config?: { default_ttl_seconds?: Record<string, number> };
}

export type PatchAgentInput = Partial<Omit<CreateAgentInput, 'client_key'>>;

const NAME_TAKEN = 'agents_account_name_key';
const CLIENT_KEY_TAKEN = 'agents_account_client_key_key';

function presentAgent(row: AgentRow, counts: AgentCounts | undefined) {
  return {
    object: 'agent' as const,
    id: row.id,
    name: row.name,
    description: row.description,
    config: row.config,
    metadata: row.metadata,
    memory_count: counts?.memory_count ?? 0,
    session_count: counts?.session_count ?? 0,
    project_count: counts?.project_count ?? 0,
    last_active_at: toIso(row.last_active_at),
    created_at: toIso(row.created_at)!,
    updated_at: toIso(row.updated_at)!,
  };
}

async function present(deps: AccountDeps, row: AgentRow) {
  const counts = await agentsRepository.countsFor(deps.db, row.account_id, [row.id]);
  return presentAgent(row, counts.get(row.id));
}

const nameTaken = (name: string) => ApiError.conflict(`An agent named "${name}" already exists`);

export async function createAgent(deps: AccountDeps, auth: AuthContext, body: CreateAgentInput) {
  try {
    const row = await agentsRepository.insert(deps.db, {
      accountId: auth.accountId,
      name: body.name,
      description: body.description ?? null,
      metadata: body.metadata,
      config: body.config,
      // A caller-chosen key besides the name resolves to this agent too (docs/clients.md, "Aliases").
      clientKey: body.client_key !== undefined && body.client_key !== body.name ? body.client_key : null,
    });
    return presentAgent(row, undefined);
  } catch (err) {
    if (isUniqueViolation(err, NAME_TAKEN)) throw nameTaken(body.name);
    if (isUniqueViolation(err, CLIENT_KEY_TAKEN)) throw ApiError.conflict(`An agent with id "${body.client_key}" already exists`);
    throw err;
  }
}

export async function listAgents(deps: AccountDeps, auth: AuthContext, page: PageParams) {
  const result = await agentsRepository.list(deps.db, auth.accountId, page);
  const counts = await agentsRepository.countsFor(deps.db, auth.accountId, result.rows.map((r) => r.id));
  return { ...result, data: result.rows.map((r) => presentAgent(r, counts.get(r.id))) };
}

async function requireAgent(deps: AccountDeps, auth: AuthContext, id: string): Promise<AgentRow> {
  const row = await agentsRepository.findLive(deps.db, auth.accountId, id);
  if (!row || (auth.agentId && auth.agentId !== row.id)) throw ApiError.notFound('Agent');
  return row;
}

export async function getAgent(deps: AccountDeps, auth: AuthContext, id: string) {
  return present(deps, await requireAgent(deps, auth, id));
}

export async function patchAgent(deps: AccountDeps, auth: AuthContext, id: string, body: PatchAgentInput) {
  await requireAgent(deps, auth, id);
  try {
    const row = await agentsRepository.update(deps.db, auth.accountId, id, body);
    // Again once committed (see deleteAgent).
    if (body.name !== undefined) agentIdCacheFor(deps.db).forgetAgent(auth.accountId, id);
    if (!row) throw ApiError.notFound('Agent');
    return present(deps, row);
  } catch (err) {
    if (isUniqueViolation(err, NAME_TAKEN)) throw nameTaken(body.name ?? '');
    throw err;
  }
}

/** The agent and its memories go together, in one transaction. */
export async function deleteAgent(deps: AccountDeps, auth: AuthContext, id: string): Promise<void> {
  await requireAgent(deps, auth, id);
  const deleted = await deps.db.transaction(async (trx) => {
    // Each memory's history names the key that deleted it with its agent.
    await memoryVersionsRepository.setActor(trx, { keyId: auth.keyId, agentId: auth.agentId });
    return agentsRepository.softDeleteWithMemories(trx, auth.accountId, id);
  });
  // Again once committed: a lookup that read the agent live before the commit may have cached it.
  agentIdCacheFor(deps.db).forgetAgent(auth.accountId, id);
  if (!deleted) throw ApiError.notFound('Agent');
}

const round = (n: number) => Math.round(n * 1e4) / 1e4;

/** The stats' database, and this process's search records still being written (the stats include them). */
export interface AgentStatsDeps extends AccountDeps {
  searches: { written(): Promise<void> };
}

export async function agentStats(deps: AgentStatsDeps, auth: AuthContext, id: string) {
  const agent = await requireAgent(deps, auth, id);
  await deps.searches.written();
  const [s, searches] = await Promise.all([
    agentsRepository.stats(deps.db, auth.accountId, id),
    searchEventsRepository.summaryForAgent(deps.db, auth.accountId, id),
  ]);
  const lastActive = agent.last_active_at ?? (s.last_memory_at as Date | null) ?? agent.created_at;
  return {
    object: 'agent_stats' as const,
    agent_id: agent.id,
    total_memories: Number(s.total_memories),
    memories_this_week: Number(s.this_week),
    memories_this_month: Number(s.this_month),
    active_sessions: Number(s.active_sessions),
    entity_count: Number(s.entity_count),
    tier_breakdown: { hot: Number(s.hot), warm: Number(s.warm), cold: Number(s.cold) },
    last_active: toIso(lastActive),
    recall_activity: {
      total_searches: searches.totalSearches,
      avg_score: round(searches.avgScore),
      avg_results: round(searches.avgResults),
    },
    search_analytics: { top_queries: searches.topQueries, avg_response_ms: round(searches.avgResponseMs) },
    // Aliases existing clients read (docs/clients.md, "Additive response members").
    memory_count: Number(s.total_memories),
    data: { total_memories: Number(s.total_memories), last_updated: toIso(lastActive) },
  };
}
