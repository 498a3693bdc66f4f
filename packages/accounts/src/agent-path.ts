import { ApiError, isUuid } from '@ams/core';
import { agentsRepository } from '@ams/db';
import type { AccountDeps, AuthContext } from './deps';

/**
 * An agent named in a path (docs/clients.md, "Method and path variants"): its UUID, or the name of a live
 * agent of the account. An unknown name is 404, as an unknown id is.
 */
export async function agentIdFromPath(deps: AccountDeps, auth: AuthContext, segment: string): Promise<string> {
  if (isUuid(segment)) return segment.toLowerCase();
  const agent = await agentsRepository.findLiveByName(deps.db, auth.accountId, segment);
  if (!agent) throw ApiError.notFound('Agent');
  return agent.id;
}

