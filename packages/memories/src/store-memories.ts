import crypto from 'node:crypto';
import { Db, MemoryRow, newMemoriesRepository, NewMemory, RecordedDelivery, VersionActor } from '@ams/db';
import type { MemoryDeps } from './deps';
import { entitiesToLink } from './entity-linking';
import { dispatchAfterCommit, memoryEventData, outboxEvents } from './events';
import type { EntityRef } from './memory.presenter';

export interface Inserted {
  rows: MemoryRow[];
  /** Entities linked to each new memory (by id). */
  entities: Map<string, EntityRef[]>;
  deliveries: RecordedDelivery[];
}

/** The ids and entities of new memories, found before their insert (a v2 create finds them while its lookups are out). */
export type MemoryPlan = ReturnType<typeof entitiesToLink> & { ids: string[] };

export function planMemories(memories: Array<Pick<NewMemory, 'accountId' | 'content'>>, autoExtract: boolean | null): MemoryPlan {
  const ids = memories.map(() => crypto.randomUUID());
  return { ids, ...entitiesToLink(memories.map((m, i) => ({ id: ids[i]!, accountId: m.accountId, content: m.content })), autoExtract) };
}

/**
 * Stores new memories (in order) with the entities extracted from them (per `autoExtract`, see
 * shouldExtract), a memory.created event each and their agents marked active: one statement
 * (newMemoriesRepository.insertWithRecords), in the caller's transaction when there is one.
 * Single creates, v2 creates and batches all store through here; `actor` is who the memories'
 * first version names (named inside the statement; see insertWithRecords).
 */
export async function insertMemories(db: Db, memories: NewMemory[], autoExtract: boolean | null, actor: VersionActor, plan = planMemories(memories, autoExtract)): Promise<Inserted> {
  const withIds = memories.map((m, i) => ({ ...m, id: plan.ids[i]! }));
  const { found, refs: entities } = plan;
  const { rows, deliveries } = await newMemoriesRepository.insertWithRecords(
    db,
    {
      memories: withIds,
      entities: found,
      events: outboxEvents(withIds.map((m) => ({ accountId: m.accountId, type: 'memory.created', data: memoryEventData({ id: m.id, agent_id: m.agentId, content: m.content, embedding_status: m.embeddingStatus }) }))),
    },
    actor,
  );
  return { rows, entities, deliveries };
}

/** insertMemories, its events handed to the dispatcher once stored. */
export async function storeMemories(deps: Pick<MemoryDeps, 'db' | 'dispatch'>, memories: NewMemory[], autoExtract: boolean | null, actor: VersionActor, plan?: MemoryPlan) {
  const inserted = await insertMemories(deps.db, memories, autoExtract, actor, plan);
  dispatchAfterCommit(deps.dispatch, inserted.deliveries);
  return inserted;
}

/**
 * Stores imported memories under the ids their records carry, with the entities a create would
 * extract (per `autoExtract`): the same statement as a create, but announcing nothing (a restore of
 * thousands of records fires no webhooks).
 */
export async function insertImportedMemories(db: Db, memories: Array<NewMemory & { id: string }>, autoExtract: boolean | null): Promise<MemoryRow[]> {
  const { found } = entitiesToLink(memories, autoExtract);
  const { rows } = await newMemoriesRepository.insertWithRecords(db, { memories, entities: found, events: [] });
  return rows;
}
