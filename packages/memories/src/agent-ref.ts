import { ApiError, isUuid } from '@ams/core';
import { agentsRepository, Db } from '@ams/db';
import type { Caller } from './deps';

function checkBinding(auth: Caller, agentId: string): void {
  if (auth.agentId && auth.agentId !== agentId) {
    throw ApiError.forbidden(`This API key is bound to agent ${auth.agentId}`);
  }
}

/**
 * `agent_id` on writes (docs/api.md, "Agents by id or name"): a UUID must name a live agent of the account (else 404); a
 * name resolves to the account's agent of that name, created on first use. Omitted: the key's
 * bound agent, else the agent named `defaultName` (created on demand), else null.
 */
export async function resolveAgentForWrite(
  db: Db,
  auth: Caller,
  input: string | undefined,
  opts: { defaultName?: string } = {},
): Promise<string | null> {
  if (input === undefined) {
    if (auth.agentId) return auth.agentId;
    return opts.defaultName ? (await agentsRepository.ensureByName(db, auth.accountId, opts.defaultName)).id : null;
  }
  if (isUuid(input)) {
    const agent = await agentsRepository.findLive(db, auth.accountId, input.toLowerCase());
    if (!agent) throw ApiError.notFound('Agent');
    checkBinding(auth, agent.id);
    return agent.id;
  }
  const agent = await agentsRepository.ensureByName(db, auth.accountId, input);
  checkBinding(auth, agent.id);
  return agent.id;
}

/**
 * `agent_id` on reads: omitted → the key's bound agent, or null for all agents; a UUID must
 * exist (404); a name that names no agent matches nothing ('none') and is never created.
 */
export async function resolveAgentForRead(
  db: Db,
  auth: Caller,
  input: string | undefined,
): Promise<string | null | 'none'> {
  if (input === undefined) return auth.agentId;
  const agent = isUuid(input)
    ? await agentsRepository.findLive(db, auth.accountId, input.toLowerCase())
    : await agentsRepository.findLiveByName(db, auth.accountId, input);
  if (!agent) {
    if (isUuid(input)) throw ApiError.notFound('Agent');
    return 'none';
  }
  checkBinding(auth, agent.id);
  return agent.id;
}
