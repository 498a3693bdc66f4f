import type { Knex } from 'knex';

export interface Throughput {
  /** Memories embedded in the window. */
  memories: number;
  /** Memories per second of model time, summed over the workers seen in the window; null without data. */
  perSecond: number | null;
  workers: number;
}

/**
 * The embedded batches of the last minutes, one row each (embedding_batches_finished_idx): the
 * measured rate behind v2 completion estimates. System telemetry shared by all accounts.
 */
export const embeddingBatchesRepository = {
  async record(db: Knex, b: { worker: string; memories: number; durationMs: number }): Promise<void> {
    await db('embedding_batches').insert({ worker: b.worker, memories: b.memories, duration_ms: Math.max(1, Math.round(b.durationMs)) });
  },

  /**
   * Rate over the window: each worker's memories per second of model time (busy time, so an idle
   * minute does not read as a slow worker), added up across workers.
   */
  async throughput(db: Knex, windowMs = 60_000): Promise<Throughput> {
    const rows: Array<{ memories: string; busy_ms: string }> = await db('embedding_batches')
      .where('finished_at', '>', db.raw(`now() - (? * interval '1 millisecond')`, [windowMs]))
      .groupBy('worker')
      .select(db.raw('sum(memories) AS memories'), db.raw('sum(duration_ms) AS busy_ms'));
    const memories = rows.reduce((n, r) => n + Number(r.memories), 0);
    const perSecond = rows.reduce((n, r) => n + Number(r.memories) / (Number(r.busy_ms) / 1000), 0);
    return { memories, perSecond: rows.length ? perSecond : null, workers: rows.length };
  },

  /** Drops rows older than `keepMs`. */
  async prune(db: Knex, keepMs = 10 * 60_000): Promise<void> {
    await db('embedding_batches').where('finished_at', '<', db.raw(`now() - (? * interval '1 millisecond')`, [keepMs])).delete();
  },
};
