import { periodic, type AccountLimitDefaults, type Logger, type PeriodicTask } from '@ams/core';
import { accountLimitsRepository, accountUsageRepository, type ActivityCounts, type Db, type LimitOverrides } from '@ams/db';

/** The limits in force for an account: its overrides over the configured defaults (0: unlimited). */
export type AccountLimits = AccountLimitDefaults;

/** The current UTC day and the first day of its month, as YYYY-MM-DD. */
export function utcPeriod(now = new Date()): { day: string; monthStart: string } {
  const day = now.toISOString().slice(0, 10);
  return { day, monthStart: `${day.slice(0, 8)}01` };
}

/** Whole seconds until the next UTC midnight (at least 1): when a daily budget starts again. */
export function secondsUntilUtcMidnight(now = new Date()): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

const ZERO: ActivityCounts = { requests: 0, searches: 0, embeddings: 0 };
const add = (a: ActivityCounts, b: Partial<ActivityCounts>): ActivityCounts => ({
  requests: a.requests + (b.requests ?? 0),
  searches: a.searches + (b.searches ?? 0),
  embeddings: a.embeddings + (b.embeddings ?? 0),
});

export interface UsageMeterOptions {
  db: Db;
  logger: Logger;
  defaults: AccountLimitDefaults;
  /** USAGE_FLUSH_INTERVAL_MS. */
  flushIntervalMs: number;
  /** How often the operator's overrides are read again (a change made through another process). */
  limitsRefreshMs?: number;
}

/**
 * One API process's view of the accounts' limits and daily activity. Requests, searches and
 * embeddings are counted in memory and added to `account_daily_usage` about once a second (one
 * statement for every account with something to add); each flush brings back the day's totals,
 * which, plus what this process has not flushed yet, are what the daily limits are checked against.
 * Another process's counts are so seen within a flush interval of theirs: together, processes can
 * admit at most what the others counted in their last interval beyond a daily limit.
 * The operator's overrides are cached whole (a row per account that has any) and read again every
 * few seconds; the process that changes them applies the change at once.
 */
export class UsageMeter {
  private overrides = new Map<string, LimitOverrides>();
  /** Per account: the day's totals in the database as last seen. */
  private readonly known = new Map<string, { day: string; counts: ActivityCounts }>();
  /** Per account and day: counted here, not yet added to the database. */
  private pending = new Map<string, { accountId: string; day: string; counts: ActivityCounts }>();
  private flushes?: PeriodicTask;
  private refreshes?: PeriodicTask;

  constructor(private readonly opts: UsageMeterOptions) {}

  get defaults(): AccountLimitDefaults {
    return this.opts.defaults;
  }

  /** Applies the storage defaults to the store, loads the overrides, and starts flushing. */
  /**
   * Reads the limits and applies the storage defaults. A database that cannot be reached at start
   * does not stop the process (it serves /v1/health as degraded): the refresh tries again.
   */
  async start(): Promise<void> {
    const logger = this.opts.logger;
    let defaultsApplied = false;
    const load = async () => {
      if (!defaultsApplied) {
        await accountUsageRepository.applyStorageDefaults(this.opts.db, this.opts.defaults.max_memories, this.opts.defaults.max_storage_bytes);
        defaultsApplied = true;
      }
      await this.reloadLimits();
    };
    await load().catch((err: Error) => logger.warn('account limits could not be read at start; the refresh tries again', { error: err.message }));
    this.flushes = periodic({ name: 'usage flush', intervalMs: this.opts.flushIntervalMs, logger, runAtStart: false }, () => this.flushNow());
    this.refreshes = periodic({ name: 'account limits refresh', intervalMs: this.opts.limitsRefreshMs ?? 10_000, logger, runAtStart: false }, load);
  }

  /** Stops the timers and writes what is left (a failure is logged: the process is stopping anyway). */
  async close(): Promise<void> {
    await this.refreshes?.stop();
    await this.flushes?.stop();
    await this.flushNow().catch((err: Error) => this.opts.logger.warn('the last usage flush failed; its counts are lost', { error: err.message }));
  }

  async reloadLimits(): Promise<void> {
    const rows = await accountLimitsRepository.all(this.opts.db);
    this.overrides = new Map(rows.map(({ account_id, updated_at: _u, ...o }) => [account_id, o]));
  }

  /** The process learns a change of the account's overrides at once (the operator's own request). */
  setOverrides(accountId: string, o: LimitOverrides): void {
    this.overrides.set(accountId, o);
  }

  overridesOf(accountId: string): LimitOverrides | undefined {
    return this.overrides.get(accountId);
  }

  /** One limit in force, from the cache, without building them all (the middleware asks on every request). */
  limitOf<K extends keyof AccountLimits>(accountId: string, name: K): AccountLimits[K] {
    return this.overrides.get(accountId)?.[name] ?? this.opts.defaults[name];
  }

  /** The account's limits in force, from the cache (no statement). */
  limitsOf(accountId: string): AccountLimits {
    const o = this.overrides.get(accountId);
    const d = this.opts.defaults;
    return {
      max_memories: o?.max_memories ?? d.max_memories,
      max_storage_bytes: o?.max_storage_bytes ?? d.max_storage_bytes,
      requests_per_minute: o?.requests_per_minute ?? d.requests_per_minute,
      searches_per_day: o?.searches_per_day ?? d.searches_per_day,
      embeddings_per_day: o?.embeddings_per_day ?? d.embeddings_per_day,
      fair_share_weight: o?.fair_share_weight ?? d.fair_share_weight,
    };
  }

  count(accountId: string, delta: Partial<ActivityCounts>, now = new Date()): void {
    const { day } = utcPeriod(now);
    const key = `${accountId}|${day}`;
    const entry = this.pending.get(key) ?? { accountId, day, counts: ZERO };
    entry.counts = add(entry.counts, delta);
    this.pending.set(key, entry);
  }

  /** What this process has counted for the account today and not flushed yet. */
  unflushed(accountId: string, day = utcPeriod().day): ActivityCounts {
    return this.pending.get(`${accountId}|${day}`)?.counts ?? ZERO;
  }

  /** The account's counts today: the database's as last seen (read once a day per account) plus this process's unflushed ones. */
  async today(accountId: string): Promise<ActivityCounts> {
    const { day, monthStart } = utcPeriod();
    let seen = this.known.get(accountId);
    if (seen?.day !== day) {
      const { today } = await accountUsageRepository.activity(this.opts.db, accountId, day, monthStart);
      seen = { day, counts: today };
      this.known.set(accountId, seen);
    }
    return add(seen.counts, this.unflushed(accountId, day));
  }

  /** Adds the counts so far to the database: one statement. Counts of a failed flush are kept for the next. */
  async flushNow(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      const totals = await accountUsageRepository.addDaily(
        this.opts.db,
        [...batch.values()].map((e) => ({ accountId: e.accountId, day: e.day, ...e.counts })),
      );
      for (const t of totals) this.known.set(t.account_id, { day: t.day, counts: { requests: t.requests, searches: t.searches, embeddings: t.embeddings } });
    } catch (err) {
      for (const [key, e] of batch) {
        const now = this.pending.get(key);
        this.pending.set(key, now ? { ...now, counts: add(now.counts, e.counts) } : e);
      }
      throw err;
    }
  }

  /** Today's counts of every account this process knows of: the metrics' source. */
  knownToday(): Array<{ accountId: string; counts: ActivityCounts }> {
    const { day } = utcPeriod();
    const out = new Map<string, ActivityCounts>();
    for (const [accountId, seen] of this.known) if (seen.day === day) out.set(accountId, seen.counts);
    for (const e of this.pending.values()) if (e.day === day) out.set(e.accountId, add(out.get(e.accountId) ?? ZERO, e.counts));
    return [...out].map(([accountId, counts]) => ({ accountId, counts }));
  }
}
