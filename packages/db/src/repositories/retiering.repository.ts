import type { Knex } from 'knex';
import type { EmbeddingStatus, Tier } from '@ams/vocabulary';
import { Page, PageParams, paginate } from '../pagination';

/** An account's re-tiering rules (docs/api.md, "Re-tiering"); an account without a row has the defaults, off. */
export interface RetieringSettingsRow {
  account_id: string;
  enabled: boolean;
  promote_recalls: number;
  promote_window_days: number;
  demote_after_days: number;
  recalls_folded_until: Date | null;
  last_run_at: Date | null;
  last_run_moved: number | null;
  updated_at: Date;
}

export type RetieringRules = Pick<RetieringSettingsRow, 'enabled' | 'promote_recalls' | 'promote_window_days' | 'demote_after_days'>;

export const RETIERING_DEFAULTS: RetieringRules = { enabled: false, promote_recalls: 3, promote_window_days: 7, demote_after_days: 30 };

export interface TierMoveRow {
  account_id: string;
  id: string;
  memory_id: string;
  from_tier: Tier;
  to_tier: Tier;
  reason: 'recalled' | 'unused';
  /** When it moved. */
  created_at: Date;
}

/** One memory moved by a batch, with what its memory.updated event carries. */
export interface MovedMemory {
  id: string;
  agent_id: string;
  content: string;
  embedding_status: EmbeddingStatus;
  from_tier: Tier;
  to_tier: Tier;
  reason: 'recalled' | 'unused';
}

/**
 * The rules as SQL, on one batch's rows `b` (memories m, left-joined memory_recalls r) at `:now`:
 * recent = r.recent_recalls decayed by half every half promote window since the last recall;
 * idle = time since the last recall, creation or move, whichever is latest.
 * Promote one step when recent, rounded, ≥ promote_recalls (three recalls just now are three, not 2.9999); else demote one step when idle ≥
 * demote_after_days × (1 + importance), never below warm at importance ≥ 0.8.
 */
const DECIDE = `
  CASE
    WHEN b.tier <> 'hot' AND round(b.recent) >= s.promote_recalls THEN CASE b.tier WHEN 'cold' THEN 'warm' ELSE 'hot' END
    WHEN b.tier <> 'cold' AND b.idle_days >= s.demote_after_days * (1 + b.importance)
         AND NOT (b.tier = 'warm' AND b.importance >= 0.8)
      THEN CASE b.tier WHEN 'hot' THEN 'warm' ELSE 'cold' END
  END`;

export const retieringRepository = {
  async settings(db: Knex, accountId: string): Promise<RetieringSettingsRow | undefined> {
    return db('account_retiering').where({ account_id: accountId }).first();
  },

  async saveSettings(db: Knex, accountId: string, rules: Partial<RetieringRules>): Promise<RetieringSettingsRow> {
    const [row] = await db('account_retiering')
      .insert({ account_id: accountId, ...RETIERING_DEFAULTS, ...rules })
      .onConflict('account_id')
      // The row's own default (now()), not now(): Citus refuses non-immutable functions in DO UPDATE SET.
      .merge({ ...rules, updated_at: db.raw('excluded.updated_at') })
      .returning('*');
    return row as RetieringSettingsRow;
  },

  /**
   * Claims up to `n` enabled accounts not re-tiered within `intervalMs` (or whose run a dead process
   * left), marking them run now: another process skips them until the next interval. Account by
   * account (Citus refuses a FOR UPDATE spanning shards): the due accounts are listed, then each
   * is claimed by an UPDATE that checks it is still due under its row lock, so two processes never
   * claim the same account.
   */
  async claimDue(db: Knex, n: number, intervalMs: number): Promise<RetieringSettingsRow[]> {
    const due = `enabled AND (last_run_at IS NULL OR last_run_at <= now() - make_interval(secs => ?::float8 / 1000))`;
    const { rows: candidates } = await db.raw(
      `SELECT account_id FROM account_retiering WHERE ${due} ORDER BY last_run_at NULLS FIRST LIMIT ?`,
      [intervalMs, n],
    );
    const claimed: RetieringSettingsRow[] = [];
    for (const { account_id } of candidates as Array<{ account_id: string }>) {
      const { rows } = await db.raw(`UPDATE account_retiering SET last_run_at = now() WHERE account_id = ? AND ${due} RETURNING *`, [account_id, intervalMs]);
      claimed.push(...(rows as RetieringSettingsRow[]));
    }
    return claimed;
  },

  /** Hands claimed accounts back, due at once (a process stopping before it re-tiered them). */
  async release(db: Knex, accountIds: string[]): Promise<void> {
    if (accountIds.length) await db('account_retiering').whereIn('account_id', accountIds).update({ last_run_at: null });
  },

  /**
   * Folds the recalls recorded in search_events after the account's watermark and up to `until`
   * (null: the fold's own transaction time, on the database's clock) into memory_recalls (last
   * recall, count, and the decayed recent count), then moves the watermark.
   */
  async foldRecalls(db: Knex, accountId: string, from: Date | null, until: Date | null, halfLifeDays: number): Promise<number> {
    return db.transaction(async (trx) => {
      const { rowCount } = await trx.raw(
        `INSERT INTO memory_recalls AS r (account_id, memory_id, last_recalled_at, recall_count, recent_recalls)
         SELECT e.account_id, hit.id, max(e.created_at), count(*), count(*)
           FROM search_events e CROSS JOIN LATERAL unnest(e.memory_ids) AS hit(id)
           JOIN memories m ON m.account_id = e.account_id AND m.id = hit.id
          WHERE e.account_id = ?::uuid AND e.memory_ids IS NOT NULL
            AND e.created_at > coalesce(?::timestamptz, '-infinity') AND e.created_at <= coalesce(?::timestamptz, now())
          GROUP BY e.account_id, hit.id
         ON CONFLICT (account_id, memory_id) DO UPDATE SET
           last_recalled_at = greatest(r.last_recalled_at, excluded.last_recalled_at),
           recall_count = r.recall_count + excluded.recall_count,
           recent_recalls = r.recent_recalls * power(0.5, greatest(0, extract(epoch FROM excluded.last_recalled_at - r.last_recalled_at)) / (?::float8 * 86400))
                            + excluded.recent_recalls`,
        [accountId, from, until, halfLifeDays],
      );
      await trx('account_retiering').where({ account_id: accountId }).update({ recalls_folded_until: until ?? trx.raw('now()') });
      return rowCount ?? 0;
    });
  },

  /**
   * One batch: the next `limit` live, unpinned memories after `afterId` (by id), locked with SKIP
   * LOCKED (a row a writer holds is skipped this run, and no writer waits longer than this
   * statement), moved per DECIDE, each move logged in tier_moves. Returns the batch's last id (null:
   * the account is done) and the memories moved.
   */
  async retierBatch(
    trx: Knex,
    rules: RetieringRules & { account_id: string },
    afterId: string | null,
    limit: number,
    now: Date,
  ): Promise<{ lastId: string | null; moved: MovedMemory[] }> {
    const { rows } = await trx.raw(
      `WITH s AS (SELECT ?::int AS promote_recalls, ?::float8 AS promote_window_days, ?::float8 AS demote_after_days, ?::timestamptz AS now),
       locked AS (
         SELECT m.account_id, m.id, m.tier, m.importance, m.created_at, m.tier_moved_at
           FROM memories m
          WHERE m.account_id = ?::uuid AND m.id > coalesce(?::uuid, '00000000-0000-0000-0000-000000000000'::uuid)
            AND m.deleted_at IS NULL AND NOT m.tier_explicit
          ORDER BY m.id LIMIT ?
          FOR UPDATE OF m SKIP LOCKED
       ), b AS (
         SELECT l.*,
                coalesce(r.recent_recalls * power(0.5, greatest(0, extract(epoch FROM s.now - r.last_recalled_at)) / (s.promote_window_days * 43200)), 0) AS recent,
                extract(epoch FROM s.now - greatest(l.created_at, l.tier_moved_at, r.last_recalled_at)) / 86400 AS idle_days
           FROM locked l CROSS JOIN s
           LEFT JOIN memory_recalls r ON r.account_id = l.account_id AND r.memory_id = l.id
       ), decided AS (
         SELECT b.account_id, b.id, b.tier AS from_tier, ${DECIDE} AS to_tier,
                CASE WHEN round(b.recent) >= s.promote_recalls THEN 'recalled' ELSE 'unused' END AS reason
           FROM b CROSS JOIN s
       ), moved AS (
         UPDATE memories m SET tier = d.to_tier, tier_moved_at = (SELECT now FROM s)
           FROM decided d
          WHERE m.account_id = d.account_id AND m.id = d.id AND d.to_tier IS NOT NULL
         RETURNING m.id, m.agent_id, m.content, m.embedding_status, d.from_tier, d.to_tier, d.reason
       ), logged AS (
         INSERT INTO tier_moves (account_id, memory_id, from_tier, to_tier, reason, created_at)
         SELECT ?::uuid, id, from_tier, to_tier, reason, (SELECT now FROM s) FROM moved
       )
       SELECT (SELECT max(id::text) FROM locked) AS last_id,
              coalesce((SELECT json_agg(moved) FROM moved), '[]'::json) AS moved`,
      [rules.promote_recalls, rules.promote_window_days, rules.demote_after_days, now, rules.account_id, afterId, limit, rules.account_id],
    );
    const row = rows[0] as { last_id: string | null; moved: MovedMemory[] | string };
    return { lastId: row.last_id, moved: typeof row.moved === 'string' ? JSON.parse(row.moved) : row.moved };
  },

  async finishRun(db: Knex, accountId: string, moved: number): Promise<void> {
    await db('account_retiering').where({ account_id: accountId }).update({ last_run_moved: moved, last_run_at: db.fn.now() });
  },

  /** The account's tier moves, newest first (optionally of one memory). */
  async moves(db: Knex, accountId: string, filters: { memoryId?: string }, page: PageParams): Promise<Page<TierMoveRow>> {
    const q = db('tier_moves').where('tier_moves.account_id', accountId);
    if (filters.memoryId) q.where('tier_moves.memory_id', filters.memoryId);
    return paginate<TierMoveRow>(q, 'tier_moves', page);
  },
};
