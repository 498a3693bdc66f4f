import { ApiError, isUuid } from '@ams/core';
import { agentIdCacheFor, agentsRepository, Db, isAgentGone } from '@ams/db';
import type { Caller } from './deps';

function checkBinding(auth: Caller, agentId: string): void {
  if (auth.agentId && auth.agentId !== agentId) {
    throw ApiError.forbidden(`This API key is bound to agent ${auth.agentId}`);
  }
}

/**
 * The id `ref` resolved to, from the process's cache (AGENT_CACHE_MS, agent-id-cache.ts) or `look`
 * (cached when it finds one). A write's INSERT checks the agent is still live (live_agent()), so a
 * create never stores under an agent deleted since; a read may follow a rename made through
 * another process up to the bound late.
 */
async function cachedAgentId(db: Db, accountId: string, ref: string, look: () => Promise<{ id: string } | undefined>): Promise<string | undefined> {
  const cache = agentIdCacheFor(db);
  const hit = cache.get(accountId, ref);
  if (hit) return hit;
  const readAt = Date.now();
  const agent = await look();
  if (agent) cache.set(accountId, ref, agent.id, readAt);
  return agent?.id;
}

/** Every lookup reads the database. */
const uncached = (_db: Db, _accountId: string, _ref: string, look: () => Promise<{ id: string } | undefined>) => look().then((a) => a?.id);

/**
 * `agent_id` on writes (docs/api.md, "Agents by id or name"): a UUID must name a live agent of the account (else 404); a
 * name resolves to the account's agent of that name, created on first use. Omitted: the key's
 * bound agent, else the agent named `defaultName` (created on demand), else null. `cached`: from
 * the process's cache, for a create whose INSERT checks its agent (agentMustBeLive) and that runs
 * under withLiveAgents.
 */
export async function resolveAgentForWrite(
  db: Db,
  auth: Caller,
  input: string | undefined,
  opts: { defaultName?: string; cached?: boolean } = {},
): Promise<string | null> {
  const lookUp = opts.cached ? cachedAgentId : uncached;
  if (input === undefined) {
    if (auth.agentId) return auth.agentId;
    return opts.defaultName ? ((await lookUp(db, auth.accountId, opts.defaultName, () => agentsRepository.ensureByName(db, auth.accountId, opts.defaultName!))) ?? null) : null;
  }
  if (isUuid(input)) {
    const id = input.toLowerCase();
    const agentId = await lookUp(db, auth.accountId, id, () => agentsRepository.findLive(db, auth.accountId, id));
    if (!agentId) throw ApiError.notFound('Agent');
    checkBinding(auth, agentId);
    return agentId;
  }
  const agentId = (await lookUp(db, auth.accountId, input, () => agentsRepository.ensureByName(db, auth.accountId, input)))!;
  checkBinding(auth, agentId);
  return agentId;
}

/**
 * Runs a create whose agents were resolved through resolveAgentForWrite; when its INSERT found one
 * of them deleted since it was cached (isAgentGone), runs it once more with the account's agents
 * looked up afresh: a name then makes its agent anew, a deleted agent's id is a 404.
 */
export async function withLiveAgents<T>(db: Db, accountId: string, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (err) {
    if (!isAgentGone(err)) throw err;
  }
  agentIdCacheFor(db).forgetAccount(accountId);
  try {
    return await create();
  } catch (err) {
    throw isAgentGone(err) ? ApiError.notFound('Agent') : err;
  }
}

/**
 * `agent_id` on reads: omitted → the key's bound agent, or null for all agents; a UUID must
 * exist (404); a name that names no agent matches nothing ('none') and is never created.
 * `cached` (searches): a name comes from the process's cache when it resolved within AGENT_CACHE_MS.
 */
export async function resolveAgentForRead(
  db: Db,
  auth: Caller,
  input: string | undefined,
  opts: { cached?: boolean } = {},
): Promise<string | null | 'none'> {
  if (input === undefined) return auth.agentId;
  if (isUuid(input)) {
    const agent = await agentsRepository.findLive(db, auth.accountId, input.toLowerCase());
    if (!agent) throw ApiError.notFound('Agent');
    checkBinding(auth, agent.id);
    return agent.id;
  }
  const agentId = await (opts.cached ? cachedAgentId : uncached)(db, auth.accountId, input, () => agentsRepository.findLiveByName(db, auth.accountId, input));
  if (!agentId) return 'none';
  checkBinding(auth, agentId);
  return agentId;
}
