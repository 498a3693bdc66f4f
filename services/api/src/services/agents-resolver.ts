import { ApiError } from '@ams/core';
import { agentsRepository } from '@ams/db';
import type { AppContext, AuthContext } from '../context';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkBinding(auth: AuthContext, agentId: string): void {
  if (auth.agentId && auth.agentId !== agentId) {
    throw ApiError.forbidden(`This API key is bound to agent ${auth.agentId}`);
  }
}

/**
 * `agent_id` on writes (DESIGN §4): a UUID must name a live agent of the account (else 404); a
 * name resolves to the account's agent of that name, created on first use. Omitted: the key's
 * bound agent, else the agent named `defaultName` (created on demand), else null.
 */
export async function resolveAgentForWrite(
  ctx: AppContext,
  auth: AuthContext,
  input: string | undefined,
  opts: { defaultName?: string } = {},
): Promise<string | null> {
  const db = ctx.db.knex;
  if (input === undefined) {
    if (auth.agentId) return auth.agentId;
    return opts.defaultName ? (await agentsRepository.ensureByName(db, auth.accountId, opts.defaultName)).id : null;
  }
  if (UUID.test(input)) {
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
  ctx: AppContext,
  auth: AuthContext,
  input: string | undefined,
): Promise<string | null | 'none'> {
  if (input === undefined) return auth.agentId;
  const db = ctx.db.knex;
  const agent = UUID.test(input)
    ? await agentsRepository.findLive(db, auth.accountId, input.toLowerCase())
    : await agentsRepository.findLiveByName(db, auth.accountId, input);
  if (!agent) {
    if (UUID.test(input)) throw ApiError.notFound('Agent');
    return 'none';
  }
  checkBinding(auth, agent.id);
  return agent.id;
}

/**
 * An agent named in a path (client-compat §2.2, §2.9, §2.10): its UUID, or the name of a live
 * agent of the account. An unknown name is 404, as an unknown id is.
 */
export async function agentIdFromPath(ctx: AppContext, auth: AuthContext, segment: string): Promise<string> {
  if (UUID.test(segment)) return segment.toLowerCase();
  const agent = await agentsRepository.findLiveByName(ctx.db.knex, auth.accountId, segment);
  if (!agent) throw ApiError.notFound('Agent');
  return agent.id;
}

export const isUuid = (s: string): boolean => UUID.test(s);
