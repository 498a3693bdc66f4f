import type { Knex } from 'knex';
import { MEMORY_RETURNING, MemoryRow } from './memories.repository';

/** A claim's fence: the row is still ours while it is processing with the attempt count we set. */
const fenced = (db: Knex, rows: MemoryRow[]) =>
  db('memories')
    .where('embedding_status', 'processing')
    .whereIn(
      ['account_id', 'id', 'embedding_attempts'],
      rows.map((r) => [r.account_id, r.id, r.embedding_attempts]),
    );

export interface ClaimOptions {
  limit: number;
  /** A row processing for longer than this (no heartbeat) lost its worker: claim it again. */
  stuckAfterMs: number;
  /** Stuck rows that already had this many attempts are not claimed (failAbandoned ends them). */
  maxAttempts: number;
  /** Only these memories (the in-request path). */
  ids?: string[];
}

/**
 * The asynchronous ingestion path over `memories.embedding_status`: PostgreSQL is the queue's
 * truth, queue jobs only wake workers. These statements span accounts on purpose: workers serve
 * every tenant. They rely on memories_embedding_pending_idx (status, updated_at), which holds
 * only rows still waiting.
 */
export const embeddingQueueRepository = {
  /**
   * Claims up to `limit` memories that are pending (and past any retry backoff), or stuck in
   * processing. SKIP LOCKED lets several workers claim at once without waiting on each other; each
   * claim counts as an attempt and the new attempt count fences the outcome (see completeMany).
   */
  async claim(db: Knex, o: ClaimOptions): Promise<MemoryRow[]> {
    const only = o.ids ? 'AND id = ANY (?::uuid[])' : '';
    const { rows } = await db.raw(
      `UPDATE memories m
          SET embedding_status = 'processing', embedding_started_at = now(), embedding_retry_at = NULL,
              embedding_attempts = m.embedding_attempts + 1, updated_at = now()
        WHERE (m.account_id, m.id) IN (
          SELECT account_id, id FROM memories
           WHERE deleted_at IS NULL
             AND ((embedding_status = 'pending' AND (embedding_retry_at IS NULL OR embedding_retry_at <= now()))
                  OR (embedding_status = 'processing' AND embedding_attempts < ?
                      AND embedding_started_at < now() - (? * interval '1 millisecond')))
             ${only}
           ORDER BY updated_at
           LIMIT ? FOR UPDATE SKIP LOCKED)
       RETURNING ${MEMORY_RETURNING.map((c) => `m.${c}`).join(', ')}`,
      [o.maxAttempts, o.stuckAfterMs, ...(o.ids ? [o.ids] : []), o.limit],
    );
    return rows as MemoryRow[];
  },

  /**
   * Stores the vectors of claims that still hold, in one statement (a stuck row may have been
   * re-claimed by another worker meanwhile: its vector is not stored here). Returns the rows stored.
   */
  async completeMany(db: Knex, items: Array<{ row: MemoryRow; vector: string }>, model: string): Promise<MemoryRow[]> {
    if (items.length === 0) return [];
    const { rows } = await db.raw(
      `UPDATE memories m
          SET embedding = v.embedding::vector, embedding_model = ?, embedding_status = 'ready', embedding_error = NULL,
              updated_at = now()
         FROM jsonb_to_recordset(?::jsonb) AS v(account_id uuid, id uuid, attempts integer, embedding text)
        WHERE m.account_id = v.account_id AND m.id = v.id
          AND m.embedding_status = 'processing' AND m.embedding_attempts = v.attempts
       RETURNING ${MEMORY_RETURNING.map((c) => `m.${c}`).join(', ')}`,
      [model, JSON.stringify(items.map(({ row, vector }) => ({ account_id: row.account_id, id: row.id, attempts: row.embedding_attempts, embedding: vector })))],
    );
    return rows as MemoryRow[];
  },

  /** A v2 create that asked for dedup matched `duplicateOf`: set aside (soft-deleted, recoverable). */
  async setAsideAsDuplicate(db: Knex, row: MemoryRow, duplicateOf: string): Promise<void> {
    await db('memories')
      .where({ account_id: row.account_id, id: row.id })
      .update({ deleted_at: db.fn.now(), duplicate_of: duplicateOf, updated_at: db.fn.now() });
  },

  /** Back to pending until `retryAt`, or failed for good (retryAt null), with the error. */
  async fail(db: Knex, row: MemoryRow, error: string, retryAt: Date | null): Promise<boolean> {
    const n = await fenced(db, [row]).update({
      embedding_status: retryAt ? 'pending' : 'failed',
      embedding_retry_at: retryAt,
      embedding_error: error.slice(0, 1_000),
      updated_at: db.fn.now(),
    });
    return n > 0;
  },

  /** Still working on these: pushes their stuck deadline out (the heartbeat of a long batch). */
  async heartbeat(db: Knex, rows: MemoryRow[]): Promise<void> {
    if (rows.length) await fenced(db, rows).update({ embedding_started_at: db.fn.now() });
  },

  /**
   * Gives claims back unfinished (a worker shutting down): pending at once. The attempt still
   * counts, so attempt numbers only grow and a late outcome of the old claim can never pass the fence.
   */
  async release(db: Knex, rows: MemoryRow[]): Promise<void> {
    if (rows.length) await fenced(db, rows).update({ embedding_status: 'pending', embedding_started_at: null, updated_at: db.fn.now() });
  },

  /**
   * Rows whose worker died on every one of their attempts (killed, or crashed by this very input)
   * fail instead of being claimed forever. Returns how many.
   */
  async failAbandoned(db: Knex, stuckAfterMs: number, maxAttempts: number): Promise<number> {
    return db('memories')
      .where('embedding_status', 'processing')
      .where('embedding_attempts', '>=', maxAttempts)
      .whereRaw(`embedding_started_at < now() - (? * interval '1 millisecond')`, [stuckAfterMs])
      .update({
        embedding_status: 'failed',
        embedding_error: db.raw(`'the worker stopped during each of ' || embedding_attempts || ' attempts'`),
        updated_at: db.fn.now(),
      });
  },

  /** A failed memory starts over with fresh attempts. */
  async retry(db: Knex, accountId: string, id: string): Promise<MemoryRow | undefined> {
    const [row] = await db('memories')
      .where({ account_id: accountId, id, embedding_status: 'failed' })
      .whereNull('deleted_at')
      .update({ embedding_status: 'pending', embedding_attempts: 0, embedding_error: null, embedding_retry_at: null, updated_at: db.fn.now() })
      .returning(MEMORY_RETURNING);
    return row as MemoryRow | undefined;
  },

  /** Memories waiting (pending or processing), counted up to `cap` so a huge backlog stays cheap to measure. */
  async waiting(db: Knex, cap = 100_000): Promise<{ pending: number; processing: number }> {
    const { rows } = await db.raw(
      `SELECT count(*) FILTER (WHERE embedding_status = 'pending') AS pending,
              count(*) FILTER (WHERE embedding_status = 'processing') AS processing
         FROM (SELECT embedding_status FROM memories
                WHERE embedding_status IN ('pending', 'processing') AND deleted_at IS NULL LIMIT ?) w`,
      [cap],
    );
    return { pending: Number(rows[0].pending), processing: Number(rows[0].processing) };
  },
};
