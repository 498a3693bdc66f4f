import { ApiError } from '@ams/core';
import { agentsRepository } from '@ams/db';
import type { AppContext, AuthContext } from '../context';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
