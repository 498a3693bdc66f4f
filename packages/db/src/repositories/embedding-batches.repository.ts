import type { Knex } from 'knex';

export interface BatchSpan {
  worker: string;
  memories: number;
  /** When the batch started and finished, in ms since the epoch (database clock). */
  startedMs: number;
  finishedMs: number;
}

/**
 * The embedded batches of the last minutes, one row each (embedding_batches_finished_idx): the
 * measured rate behind v2 completion estimates and the workers' throughput metric. System
 * telemetry shared by all accounts.
 */
export const embeddingBatchesRepository = {
  async record(db: Knex, b: { worker: string; memories: number; durationMs: number }): Promise<void> {
    await db('embedding_batches').insert({ worker: b.worker, memories: b.memories, duration_ms: Math.max(1, Math.round(b.durationMs)) });
  },

  /** Batches that finished within the last `windowMs`. */
  async recent(db: Knex, windowMs = 60_000): Promise<BatchSpan[]> {
    const rows: Array<{ worker: string; memories: number; finished_ms: string; duration_ms: number }> = await db('embedding_batches')
      .where('finished_at', '>', db.raw(`now() - (? * interval '1 millisecond')`, [windowMs]))
      .select('worker', 'memories', 'duration_ms', db.raw('extract(epoch from finished_at) * 1000 AS finished_ms'));
    return rows.map((r) => ({ worker: r.worker, memories: r.memories, startedMs: Number(r.finished_ms) - r.duration_ms, finishedMs: Number(r.finished_ms) }));
  },

  /** Drops rows older than `keepMs`. */
  async prune(db: Knex, keepMs = 10 * 60_000): Promise<void> {
    await db('embedding_batches').where('finished_at', '<', db.raw(`now() - (? * interval '1 millisecond')`, [keepMs])).delete();
  },
};
