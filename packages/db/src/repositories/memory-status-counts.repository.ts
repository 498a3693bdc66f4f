import type { Knex } from 'knex';

export type EmbeddingStatusCounts = Record<'pending' | 'processing' | 'ready' | 'failed', number>;

/** One account's live memories by embedding status: one grouped scan of memories_account_created_idx. */
export const memoryStatusCountsRepository = {
  async byEmbeddingStatus(db: Knex, accountId: string): Promise<EmbeddingStatusCounts> {
    const rows: Array<{ embedding_status: string; n: string }> = await db('memories')
      .where('account_id', accountId)
      .whereNull('deleted_at')
      .groupBy('embedding_status')
      .select('embedding_status', db.raw('count(*) AS n'));
    const counts: EmbeddingStatusCounts = { pending: 0, processing: 0, ready: 0, failed: 0 };
    for (const r of rows) if (r.embedding_status in counts) counts[r.embedding_status as keyof EmbeddingStatusCounts] = Number(r.n);
    return counts;
  },
};
