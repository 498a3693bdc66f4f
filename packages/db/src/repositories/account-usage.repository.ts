import type { Knex } from 'knex';

/** What an account stores now, kept by the memories trigger (migration 080), and the storage limits in force. */
export interface StoredUsage {
  memories: number;
  vectors: number;
  storage_bytes: number;
  max_memories: number;
  max_storage_bytes: number;
}

/** Requests, searches and embeddings over a period. */
export interface ActivityCounts {
  requests: number;
  searches: number;
  embeddings: number;
}

export interface DailyIncrement extends ActivityCounts {
  accountId: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
}

const EPOCH_2000 = Date.UTC(2000, 0, 1);
const DAY_MS = 86_400_000;

const counts = (r: Record<string, unknown> | undefined): ActivityCounts => ({
  requests: Number(r?.requests ?? 0),
  searches: Number(r?.searches ?? 0),
  embeddings: Number(r?.embeddings ?? 0),
});

export const accountUsageRepository = {
  /**
   * The configured storage defaults become the columns' defaults (a row the trigger creates takes
   * them) and the limits in force of every account without its own: run by each API process at start.
   */
  async applyStorageDefaults(db: Knex, maxMemories: number, maxStorageBytes: number): Promise<void> {
    const { rows } = await db.raw(
      `SELECT column_name, column_default FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'account_usage' AND column_name IN ('max_memories', 'max_storage_bytes')`,
    );
    const current = new Map((rows as Array<{ column_name: string; column_default: string }>).map((r) => [r.column_name, r.column_default]));
    // Values are integers validated by the configuration: safe to write into DDL.
    if (current.get('max_memories') !== String(maxMemories) || current.get('max_storage_bytes') !== String(maxStorageBytes)) {
      await db.raw(`ALTER TABLE account_usage ALTER COLUMN max_memories SET DEFAULT ${Math.trunc(maxMemories)}, ALTER COLUMN max_storage_bytes SET DEFAULT ${Math.trunc(maxStorageBytes)}`);
    }
    await db.raw(
      `UPDATE account_usage u
          SET max_memories = coalesce(l.max_memories, :mm), max_storage_bytes = coalesce(l.max_storage_bytes, :mb)
         FROM (SELECT a.id, o.max_memories, o.max_storage_bytes FROM accounts a LEFT JOIN account_limits o ON o.account_id = a.id) l
        WHERE u.account_id = l.id
          AND (u.max_memories <> coalesce(l.max_memories, :mm) OR u.max_storage_bytes <> coalesce(l.max_storage_bytes, :mb))`,
      { mm: maxMemories, mb: maxStorageBytes },
    );
  },

  /** The account's storage limits in force (after the operator changed them). */
  async setStorageLimits(db: Knex, accountId: string, maxMemories: number, maxStorageBytes: number): Promise<void> {
    await db.raw(
      `INSERT INTO account_usage (account_id, max_memories, max_storage_bytes) VALUES (?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET max_memories = excluded.max_memories, max_storage_bytes = excluded.max_storage_bytes`,
      [accountId, maxMemories, maxStorageBytes],
    );
  },

  /** What the account stores (zeros before its first memory). One row by primary key. */
  async stored(db: Knex, accountId: string): Promise<StoredUsage> {
    const row = (await db('account_usage').where({ account_id: accountId }).first()) as Record<string, unknown> | undefined;
    return {
      memories: Number(row?.memories ?? 0),
      vectors: Number(row?.vectors ?? 0),
      storage_bytes: Number(row?.storage_bytes ?? 0),
      max_memories: Number(row?.max_memories ?? 0),
      max_storage_bytes: Number(row?.max_storage_bytes ?? 0),
    };
  },

  /** Adds a flush's counts, one statement for every account; the day's new totals come back. */
  async addDaily(db: Knex, increments: DailyIncrement[]): Promise<Array<ActivityCounts & { account_id: string; day: string }>> {
    if (increments.length === 0) return [];
    const rows = (await db('account_daily_usage')
      .insert(increments.map((i) => ({ account_id: i.accountId, day: i.day, requests: i.requests, searches: i.searches, embeddings: i.embeddings })))
      .onConflict(['account_id', 'day'])
      .merge({
        requests: db.raw('account_daily_usage.requests + excluded.requests'),
        searches: db.raw('account_daily_usage.searches + excluded.searches'),
        embeddings: db.raw('account_daily_usage.embeddings + excluded.embeddings'),
      })
      // The day as days since 2000-01-01: date arithmetic is immutable (Citus refuses to_char and
      // casts to text in RETURNING), and no driver's date parsing (time zones) is involved.
      .returning(['account_id', db.raw(`day - DATE '2000-01-01' AS day_number`), 'requests', 'searches', 'embeddings'])) as Array<Record<string, unknown>>;
    return rows.map((r) => ({ account_id: r.account_id as string, day: new Date(EPOCH_2000 + Number(r.day_number) * DAY_MS).toISOString().slice(0, 10), ...counts(r) }));
  },

  /** The account's counts on `day` and from `monthStart` to `day` (UTC dates, YYYY-MM-DD): at most 31 rows by key. */
  async activity(db: Knex, accountId: string, day: string, monthStart: string): Promise<{ today: ActivityCounts; month: ActivityCounts }> {
    const { rows } = await db.raw(
      `SELECT coalesce(sum(requests) FILTER (WHERE day = :day), 0) AS d_requests,
              coalesce(sum(searches) FILTER (WHERE day = :day), 0) AS d_searches,
              coalesce(sum(embeddings) FILTER (WHERE day = :day), 0) AS d_embeddings,
              coalesce(sum(requests), 0) AS requests, coalesce(sum(searches), 0) AS searches, coalesce(sum(embeddings), 0) AS embeddings
         FROM account_daily_usage WHERE account_id = :a AND day >= :month AND day <= :day`,
      { a: accountId, day, month: monthStart },
    );
    const r = rows[0] as Record<string, unknown>;
    return { today: counts({ requests: r.d_requests, searches: r.d_searches, embeddings: r.d_embeddings }), month: counts(r) };
  },
};
