import { Db, embeddingQueueRepository, MemoryRow, RecordedDelivery } from '@ams/db';
import { findDuplicate, lockForDedup } from './dedup';
import { embeddingCompletedData, recordEvents } from './events';

export interface CompletedEmbeddings {
  /** Memory id → the memory it duplicates (null: it stands). Claims lost meanwhile are absent. */
  settled: Map<string, string | null>;
  deliveries: RecordedDelivery[];
}

/**
 * The domain's side of a finished embedding batch, in one transaction: stores the vectors whose
 * claims still hold, applies each v2 create's dedup request, and records embedding.completed for
 * the accounts' webhooks and each create's one-shot `webhook_url`. Hand `deliveries` to the
 * dispatcher after it returns (dispatchAfterCommit).
 *
 * Dedup compares a memory with its agent's ready memories before storing its vector, so it never
 * matches itself or a later one: of near-identical memories the first to be embedded stands, in
 * creation order within a batch. The batch's agents are locked up front (lockForDedup, one order
 * for all), so concurrent batches and v1 creates cannot interleave their checks or deadlock.
 */
export async function completeEmbeddings(
  db: Db,
  embedder: { model: string; dimensions: number },
  items: Array<{ row: MemoryRow; vector: string }>,
): Promise<CompletedEmbeddings> {
  return db.transaction(async (trx): Promise<CompletedEmbeddings> => {
    const model = embedder.model;
    const plain = items.filter((i) => i.row.dedup_threshold === null);
    const deduped = items.filter((i) => i.row.dedup_threshold !== null).sort((a, b) => a.row.created_at.getTime() - b.row.created_at.getTime());
    await lockForDedup(trx, deduped.map(({ row }) => ({ accountId: row.account_id, agentId: row.agent_id })));
    const settled = new Map<string, string | null>();
    const done = await embeddingQueueRepository.completeMany(trx, plain, model);
    for (const row of done) settled.set(row.id, null);
    for (const item of deduped) {
      const { row, vector } = item;
      const duplicateOf = await findDuplicate(trx, { accountId: row.account_id, agentId: row.agent_id }, vector, model, row.dedup_threshold!);
      const [stored] = await embeddingQueueRepository.completeMany(trx, [item], model);
      if (!stored) continue;
      if (duplicateOf) await embeddingQueueRepository.setAsideAsDuplicate(trx, stored, duplicateOf);
      settled.set(row.id, duplicateOf);
      done.push(stored);
    }
    const deliveries = await recordEvents(
      trx,
      done.map((row) => ({
        accountId: row.account_id,
        type: 'embedding.completed',
        data: embeddingCompletedData(row, embedder, settled.get(row.id) ?? null),
        url: row.webhook_url,
      })),
    );
    return { settled, deliveries };
  });
}
