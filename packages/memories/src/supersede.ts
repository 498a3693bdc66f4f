import { ApiError } from '@ams/core';
import { Db, memoriesRepository, memoryVersionsRepository, NewMemory } from '@ams/db';
import { actorOf } from './history';
import type { Caller, MemoryDeps } from './deps';
import { dispatchAfterCommit, memoryEventData, recordEvent } from './events';
import { requireVisibleMemory } from './memory-scope';
import { Inserted, insertMemories, MemoryPlan } from './store-memories';

/**
 * `supersedes` on create (docs/api.md, "Time-aware recall"), as decisions' supersede: in the
 * caller's transaction, with the old memory locked, the new memory is stored true from its
 * valid_from (now unless given) and the old one ends there; each names the other. Another
 * account's (or another agent's, for an agent-bound key) memory is 404; superseding twice is 409.
 */
export async function insertSuperseding(
  trx: Db,
  caller: Caller,
  memory: NewMemory,
  supersedes: string,
  autoExtract: boolean | null,
  plan?: MemoryPlan,
): Promise<Inserted> {
  const old = requireVisibleMemory(caller, await memoriesRepository.findLiveForUpdate(trx, caller.accountId, supersedes));
  if (old.superseded_by) throw ApiError.conflict(`Memory ${old.id} has already been superseded (by ${old.superseded_by})`);
  const validFrom = memory.validFrom ?? new Date();
  if (old.valid_from && old.valid_from >= validFrom) {
    throw ApiError.invalidField('valid_from', `valid_from must be later than the superseded memory's valid_from (${old.valid_from.toISOString()})`);
  }
  const inserted = await insertMemories(trx, [{ ...memory, validFrom, supersedes: old.id }], autoExtract, actorOf(caller), plan);
  const created = inserted.rows[0]!;
  // An old memory that had already stopped being true keeps its earlier end.
  const validUntil = old.valid_until && old.valid_until < validFrom ? old.valid_until : validFrom;
  await memoryVersionsRepository.setActor(trx, actorOf(caller, 'supersede'));
  const updated = await memoriesRepository.update(trx, caller.accountId, old.id, { validUntil, supersededBy: created.id });
  const deliveries = await recordEvent(trx, caller.accountId, 'memory.updated', {
    ...memoryEventData(updated!),
    changes: ['valid_until', 'superseded_by'],
    superseded_by: created.id,
  });
  return { ...inserted, deliveries: [...inserted.deliveries, ...deliveries] };
}

/** insertSuperseding in its own transaction, its events handed to the dispatcher once committed. */
export async function storeSuperseding(
  deps: Pick<MemoryDeps, 'db' | 'dispatch'>,
  caller: Caller,
  memory: NewMemory,
  supersedes: string,
  autoExtract: boolean | null,
  plan?: MemoryPlan,
): Promise<Inserted> {
  const inserted = await deps.db.transaction((trx) => insertSuperseding(trx, caller, memory, supersedes, autoExtract, plan));
  dispatchAfterCommit(deps.dispatch, inserted.deliveries);
  return inserted;
}
