import type { Knex } from 'knex';

/** An account's own limits: null takes the configured default, 0 is unlimited. */
export interface LimitOverrides {
  max_memories: number | null;
  max_storage_bytes: number | null;
  requests_per_minute: number | null;
  searches_per_day: number | null;
  embeddings_per_day: number | null;
  fair_share_weight: number | null;
}

export const LIMIT_NAMES = ['max_memories', 'max_storage_bytes', 'requests_per_minute', 'searches_per_day', 'embeddings_per_day', 'fair_share_weight'] as const;

export interface LimitOverridesRow extends LimitOverrides {
  account_id: string;
  updated_at: Date;
}

const numeric = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const toOverrides = (row: Record<string, unknown>): LimitOverridesRow => ({
  account_id: row.account_id as string,
  updated_at: row.updated_at as Date,
  max_memories: numeric(row.max_memories),
  max_storage_bytes: numeric(row.max_storage_bytes),
  requests_per_minute: numeric(row.requests_per_minute),
  searches_per_day: numeric(row.searches_per_day),
  embeddings_per_day: numeric(row.embeddings_per_day),
  fair_share_weight: numeric(row.fair_share_weight),
});

export const accountLimitsRepository = {
  /** Every account's overrides (a few rows per tenant at most: each process caches them all). */
  async all(db: Knex): Promise<LimitOverridesRow[]> {
    const rows = (await db('account_limits').select('*')) as Array<Record<string, unknown>>;
    return rows.map(toOverrides);
  },

  async forAccount(db: Knex, accountId: string): Promise<LimitOverridesRow | undefined> {
    const row = (await db('account_limits').where({ account_id: accountId }).first()) as Record<string, unknown> | undefined;
    return row ? toOverrides(row) : undefined;
  },

  /** Writes the account's overrides as given (all six: a PUT's nulls clear). */
  async save(db: Knex, accountId: string, limits: LimitOverrides): Promise<LimitOverridesRow> {
    const [row] = (await db('account_limits')
      .insert({ account_id: accountId, ...limits, updated_at: db.fn.now() })
      .onConflict('account_id')
      .merge()
      .returning('*')) as Array<Record<string, unknown>>;
    return toOverrides(row!);
  },
};
