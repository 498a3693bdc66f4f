import { Db, memoriesRepository, type BoundVector } from '@ams/db';

/**
 * The one dedup rule, for v1 creates (checked in the request) and v2 creates (checked by whoever
 * embeds them): a memory duplicates its agent's nearest ready memory of the same model when their
 * cosine similarity reaches the threshold.
 *
 * The guarantee: take lockForDedup, then findDuplicate, then insert (or store the vector), all in
 * ONE transaction. Checks of one agent are then serialised until commit, so two concurrent creates
 * of the same content cannot both find nothing and both be stored.
 */
export async function lockForDedup(trx: Db, agents: Array<{ accountId: string; agentId: string }>): Promise<void> {
  await memoriesRepository.lockAgentsForDedup(trx, agents);
}

/** The id of the memory `vector` duplicates, or null. Call under lockForDedup, in the transaction that stores. */
export async function findDuplicate(
  trx: Db,
  agent: { accountId: string; agentId: string },
  vector: BoundVector,
  model: string,
  threshold: number,
): Promise<string | null> {
  const nearest = await memoriesRepository.nearestOfAgent(trx, agent.accountId, agent.agentId, vector, model);
  return nearest && nearest.similarity >= threshold ? nearest.id : null;
}
