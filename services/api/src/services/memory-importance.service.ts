import { memoriesRepository, Tier } from '@ams/db';
import type { AppContext, AuthContext } from '../context';
import { patchMemory } from './memories/memories.service';
import { requireVisibleMemory } from './memories/memory-scope';
import { tierForImportance } from './memories/tiering';

/**
 * PUT /v1/memories/{id}/importance (client-compat §3.1): promote or demote. A given tier is set as
 * is; otherwise the tier follows the new importance, even where a tier had been set explicitly
 * (promotion is the point of the call). Goes through the memory PATCH, so memory.updated fires.
 */
export async function setImportance(ctx: AppContext, auth: AuthContext, id: string, body: { importance: number; tier?: Tier }) {
  const current = requireVisibleMemory(auth, await memoriesRepository.findLive(ctx.db.knex, auth.accountId, id));
  const tier = body.tier ?? (current.tier_explicit ? tierForImportance(body.importance) : undefined);
  return patchMemory(ctx, auth, id, { importance: body.importance, ...(tier ? { tier } : {}) });
}
