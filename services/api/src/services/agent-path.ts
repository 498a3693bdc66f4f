import { ApiError, isUuid } from '@ams/core';
import { agentsRepository } from '@ams/db';
import type { AppContext, AuthContext } from '../context';

/**
 * An agent named in a path (client-compat §2.2, §2.9, §2.10): its UUID, or the name of a live
 * agent of the account. An unknown name is 404, as an unknown id is.
 */
export async function agentIdFromPath(ctx: AppContext, auth: AuthContext, segment: string): Promise<string> {
  if (isUuid(segment)) return segment.toLowerCase();
  const agent = await agentsRepository.findLiveByName(ctx.db.knex, auth.accountId, segment);
  if (!agent) throw ApiError.notFound('Agent');
  return agent.id;
}

