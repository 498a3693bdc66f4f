import { memoriesRepository } from '@ams/db';
import type { Caller, MemoryDeps } from './deps';
import { patchMemory } from './memories.service';
import { requireVisibleMemory } from './memory-scope';
import { tierForImportance } from './tiering';
import type { Tier } from '@ams/vocabulary';

export interface SetImportanceInput {
  importance: number;
  tier?: Tier;
}

/**
 * PUT /v1/memories/{id}/importance (docs/clients.md, "Additional endpoints"): promote or demote. A given tier is set as
 * is; otherwise the tier follows the new importance, even where a tier had been set explicitly
 * (promotion is the point of the call). Goes through the memory PATCH, so memory.updated fires.
 */
export async function setImportance(deps: MemoryDeps, caller: Caller, id: string, body: SetImportanceInput) {
  const current = requireVisibleMemory(caller, await memoriesRepository.findLive(deps.db, caller.accountId, id));
  const tier = body.tier ?? (current.tier_explicit ? tierForImportance(body.importance) : undefined);
  return patchMemory(deps, caller, id, { importance: body.importance, ...(tier ? { tier } : {}) });
}
