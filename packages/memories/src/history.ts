import type { Db, VersionActor } from '@ams/db';
import type { MemoryChange } from '@ams/vocabulary';
import { memoryVersionsRepository } from '@ams/db';
import type { Caller } from './deps';

/** Who a caller is in a memory's history: its key, and the agent the key is bound to (if any). */
export function actorOf(caller: Caller, change?: MemoryChange): VersionActor {
  return { keyId: caller.keyId ?? null, agentId: caller.agentId, change };
}

/**
 * Runs `fn` in a transaction whose memory changes the history records as `actor`'s (the trigger
 * reads it from the transaction; see memoryVersionsRepository.setActor). Inside a transaction
 * already, names the actor there.
 */
export async function asActor<T>(db: Db, actor: VersionActor, fn: (trx: Db) => Promise<T>): Promise<T> {
  if ((db as { isTransaction?: boolean }).isTransaction) {
    await memoryVersionsRepository.setActor(db, actor);
    return fn(db);
  }
  return db.transaction(async (trx) => {
    await memoryVersionsRepository.setActor(trx, actor);
    return fn(trx);
  });
}
