import { agentsRepository, Db, memoriesRepository, MemoryRow, NewMemory, RecordedDelivery } from '@ams/db';
import type { MemoryDeps } from './deps';
import { linkExtractedEntities, shouldExtract } from './entity-linking';
import { dispatchAfterCommit, memoryEventData, recordEvents } from './events';
import type { EntityRef } from './memory.presenter';

export interface Inserted {
  rows: MemoryRow[];
  /** Entities linked to each new memory (by id). */
  entities: Map<string, EntityRef[]>;
  deliveries: RecordedDelivery[];
}

/**
 * Inside the caller's transaction: inserts the memories (in order), links the entities extracted
 * from them (per `autoExtract`, see shouldExtract), records memory.created for each and marks
 * their agents active. Single creates, v2 creates and batches all store through here.
 */
export async function insertMemories(trx: Db, memories: NewMemory[], autoExtract: boolean | null): Promise<Inserted> {
  const rows = await memoriesRepository.insertMany(trx, memories);
  const entities = new Map<string, EntityRef[]>();
  for (const [accountId, ofAccount] of byAccount(rows)) {
    const linked = await linkExtractedEntities(trx, accountId, ofAccount.filter((r) => shouldExtract(autoExtract, r.content)));
    for (const [id, refs] of linked) entities.set(id, refs);
    await agentsRepository.markActive(trx, accountId, ofAccount.map((r) => r.agent_id));
  }
  const deliveries = await recordEvents(trx, rows.map((r) => ({ accountId: r.account_id, type: 'memory.created', data: memoryEventData(r) })));
  return { rows, entities, deliveries };
}

/** insertMemories in a transaction of its own, its events handed to the dispatcher after commit. */
export async function storeMemories(deps: Pick<MemoryDeps, 'db' | 'dispatch'>, memories: NewMemory[], autoExtract: boolean | null) {
  const inserted = await deps.db.transaction((trx) => insertMemories(trx, memories, autoExtract));
  dispatchAfterCommit(deps.dispatch, inserted.deliveries);
  return inserted;
}

function byAccount(rows: MemoryRow[]): Map<string, MemoryRow[]> {
  const out = new Map<string, MemoryRow[]>();
  for (const r of rows) out.set(r.account_id, [...(out.get(r.account_id) ?? []), r]);
  return out;
}
