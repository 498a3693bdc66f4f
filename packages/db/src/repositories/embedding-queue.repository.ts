import type { Knex } from 'knex';
import { claimAcrossAccounts } from './fair-claim';
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
  /** Stuck rows that already used this many attempts are not claimed (failAbandoned ends them). */
  maxAttempts: number;
  /** Only these memories of one account (the in-request path). */
  only?: { accountId: string; ids: string[] };
}

/** Rows grouped by account (each group non-empty). */
function byAccount<T extends { account_id: string }>(rows: T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const r of rows) groups.set(r.account_id, [...(groups.get(r.account_id) ?? []), r]);
  return [...groups.values()];
}

const RETURNING_M = MEMORY_RETURNING.map((c) => `m.${c}`).join(', ');

/**
 * Claims up to `limit` rows of one account matching `condition`, oldest first by `orderBy` (the
 * partial index that holds those rows). SKIP LOCKED lets several workers claim at once without
 * waiting on each other; the claim counts as an attempt. One account: one shard on Citus.
 */
async function claimOfAccount(db: Knex, condition: string, bindings: Knex.RawBinding[], orderBy: string, accountId: string, limit: number, ids?: string[]): Promise<MemoryRow[]> {
  if (limit <= 0) return [];
  const scope = ids ? 'AND id = ANY (?::uuid[])' : '';
  const { rows } = await db.raw(
    // MATERIALIZED: the locking read runs once. As a subquery the planner may rescan it inside a
    // nested loop (as it did on Citus' small shards), each rescan skipping the rows the last one
    // locked: more rows than the limit came back.
    `WITH c AS MATERIALIZED (
       SELECT account_id, id FROM memories
        WHERE account_id = ? AND deleted_at IS NULL AND ${condition} ${scope}
        ORDER BY ${orderBy}
        LIMIT ? FOR UPDATE SKIP LOCKED)
     UPDATE memories m
        SET embedding_status = 'processing', embedding_started_at = now(), embedding_retry_at = NULL,
            embedding_attempts = m.embedding_attempts + 1, updated_at = now()
       FROM c
      WHERE m.account_id = ? AND m.account_id = c.account_id AND m.id = c.id
     RETURNING ${RETURNING_M}`,
    [accountId, ...bindings, ...(ids ? [ids] : []), limit, accountId],
  );
  return rows as MemoryRow[];
}

/** Accounts with rows matching `condition`, the one whose oldest (by `orderBy`) has waited longest first. */
async function accountsWaiting(db: Knex, condition: string, bindings: Knex.RawBinding[], orderBy: string, limit: number): Promise<string[]> {
  const { rows } = await db.raw(
    `SELECT account_id FROM memories WHERE deleted_at IS NULL AND ${condition}
      GROUP BY account_id ORDER BY min(${orderBy}) LIMIT ?`,
    [...bindings, limit],
  );
  return (rows as Array<{ account_id: string }>).map((r) => r.account_id);
}

/** Up to `limit` rows matching `condition`, shared fairly over the accounts that have some (see claimAcrossAccounts). */
function claimWhere(db: Knex, condition: string, bindings: Knex.RawBinding[], orderBy: string, limit: number, only?: ClaimOptions['only']): Promise<MemoryRow[]> {
  if (only) return claimOfAccount(db, condition, bindings, orderBy, only.accountId, limit, only.ids);
  return claimAcrossAccounts(
    limit,
    (n) => accountsWaiting(db, condition, bindings, orderBy, n),
    (accountId, n) => claimOfAccount(db, condition, bindings, orderBy, accountId, n),
  );
}

/**
 * The asynchronous ingestion path over `memories.embedding_status`: PostgreSQL is the queue's
 * truth, queue jobs only wake workers. Workers serve every tenant: a claim finds the accounts with
 * work waiting (memories_embedding_pending_idx and memories_embedding_processing_idx hold only
 * those rows), then claims account by account, fairly (claimAcrossAccounts).
 */
export const embeddingQueueRepository = {
  /**
   * Claims up to `limit` memories: first claims whose worker died (processing, no heartbeat for
   * `stuckAfterMs`), then pending ones past any retry backoff, oldest first. Each claim's new
   * attempt count fences its outcome (see completeMany).
   */
  async claim(db: Knex, o: ClaimOptions): Promise<MemoryRow[]> {
    const stuck = await claimWhere(
      db,
      `embedding_status = 'processing' AND embedding_started_at < now() - (? * interval '1 millisecond')
       AND embedding_attempts - embedding_attempts_base < ?`,
      [o.stuckAfterMs, o.maxAttempts],
      'embedding_started_at',
      o.limit,
      o.only,
    );
    const pending = await claimWhere(
      db,
      `embedding_status = 'pending' AND (embedding_retry_at IS NULL OR embedding_retry_at <= now())`,
      [],
      'updated_at',
      o.limit - stuck.length,
      o.only,
    );
    return [...stuck, ...pending];
  },

  /**
   * Stores the vectors of claims that still hold, in one statement. A claim is lost when another
   * worker re-claimed the row (it looked stuck), its content changed, or it was deleted: its vector
   * is not stored. Returns the rows stored.
   */
  async completeMany(db: Knex, items: Array<{ row: MemoryRow; vector: string }>, model: string): Promise<MemoryRow[]> {
    if (items.length === 0) return [];
    const { rows } = await db.raw(
      `UPDATE memories m
          SET embedding = v.embedding::vector, embedding_model = ?, embedding_status = 'ready', embedding_error = NULL,
              updated_at = now()
         FROM jsonb_to_recordset(?::jsonb) AS v(account_id uuid, id uuid, attempts integer, embedding text)
        WHERE m.account_id = ANY (?::uuid[]) AND m.account_id = v.account_id AND m.id = v.id AND m.deleted_at IS NULL
          AND m.embedding_status = 'processing' AND m.embedding_attempts = v.attempts
       RETURNING ${RETURNING_M}`,
      [
        model,
        JSON.stringify(items.map(({ row, vector }) => ({ account_id: row.account_id, id: row.id, attempts: row.embedding_attempts, embedding: vector }))),
        // The accounts as values too: on Citus the update then reaches only their shards.
        [...new Set(items.map(({ row }) => row.account_id))],
      ],
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

  /**
   * Still working on these: pushes their stuck deadline out (the heartbeat of a long batch). Rows
   * another transaction holds are skipped, never waited for: that is the batch storing them right
   * now (it locks them in its own order, so waiting here could deadlock with it), and they need no
   * heartbeat. A skipped row that stays processing is touched by the next beat.
   */
  async heartbeat(db: Knex, rows: MemoryRow[]): Promise<void> {
    // Account by account: a locking read must stay on one shard on Citus.
    for (const group of byAccount(rows)) {
      const free = fenced(db, group).select('account_id', 'id').forUpdate().skipLocked();
      await db('memories').where('account_id', group[0]!.account_id).whereIn(['account_id', 'id'], free).update({ embedding_started_at: db.fn.now() });
    }
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
   * fail instead of being claimed forever. Returns how many. It runs before every sweep and almost
   * always finds nothing: the accounts are found by a read (on Citus one read over the shards, where
   * an UPDATE over them costs a distributed transaction even when it changes no row), then each
   * account's rows are failed by a single-shard UPDATE.
   */
  async failAbandoned(db: Knex, stuckAfterMs: number, maxAttempts: number): Promise<number> {
    const abandoned = (q: Knex.QueryBuilder) =>
      q
        .where('embedding_status', 'processing')
        .whereNull('deleted_at')
        .whereRaw(`embedding_started_at < now() - (? * interval '1 millisecond')`, [stuckAfterMs])
        .whereRaw('embedding_attempts - embedding_attempts_base >= ?', [maxAttempts]);
    const accounts: string[] = await abandoned(db('memories')).distinct('account_id').pluck('account_id');
    let failed = 0;
    for (const accountId of accounts) {
      failed += await abandoned(db('memories').where('account_id', accountId)).update({
        embedding_status: 'failed',
        embedding_error: db.raw(`'the worker stopped during each of ' || (embedding_attempts - embedding_attempts_base)::text || ' attempts'`),
        updated_at: db.fn.now(),
      });
    }
    return failed;
  },

  /**
   * Waits for an embedding again with a fresh budget of attempts: a failed memory retried by hand,
   * or one whose content changed before its embedding was ready. The attempt count is not reset
   * (it fences claims), its base moves. Pass `only` a status to require it (retry: 'failed').
   */
  async requeue(db: Knex, accountId: string, id: string, only?: 'failed'): Promise<MemoryRow | undefined> {
    const q = db('memories').where({ account_id: accountId, id }).whereNull('deleted_at').whereNot('embedding_status', 'ready');
    if (only) q.where('embedding_status', only);
    const [row] = await q
      .update({
        embedding_status: 'pending',
        embedding: null,
        embedding_model: null,
        embedding_error: null,
        embedding_retry_at: null,
        embedding_started_at: null,
        embedding_attempts_base: db.ref('embedding_attempts'),
        updated_at: db.fn.now(),
      })
      .returning(MEMORY_RETURNING);
    return row as MemoryRow | undefined;
  },

  /** Memories waiting, by status, each counted up to `cap` so a huge backlog stays cheap to measure. */
  async waiting(db: Knex, cap = 100_000): Promise<{ pending: number; processing: number }> {
    const count = (status: string) =>
      `(SELECT count(*) FROM (SELECT 1 FROM memories WHERE embedding_status = '${status}' AND deleted_at IS NULL LIMIT ?) w)`;
    const { rows } = await db.raw(`SELECT ${count('pending')} AS pending, ${count('processing')} AS processing`, [cap, cap]);
    return { pending: Number(rows[0].pending), processing: Number(rows[0].processing) };
  },

  /** Seconds since the longest-waiting pending memory was queued (or last handed back); 0 when none. Reads memories_embedding_pending_idx. */
  async oldestPendingAgeSeconds(db: Knex): Promise<number> {
    const { rows } = await db.raw(
      `SELECT EXTRACT(EPOCH FROM now() - updated_at) AS age FROM memories
        WHERE embedding_status = 'pending' AND deleted_at IS NULL ORDER BY updated_at LIMIT 1`,
    );
    return Math.max(0, Number(rows[0]?.age ?? 0));
  },
};
