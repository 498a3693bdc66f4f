import type { Knex } from 'knex';
import { periodic, withTimeout, type Logger, type PeriodicTask } from '@ams/core';
import { createPostgresKnex, type DriverFeatures } from '../knex';
import { replicationRepository } from '../repositories/replication.repository';
import { readWithFailover, replicaPool, type ReplicaPool } from './failover';
import { replicaIsDown } from './replica-faults';
import { walEnd, type Lsn, type WalLayout } from './lsn';

export type ReplicaState = 'starting' | 'up' | 'lagging' | 'down' | 'not_a_standby';

/** One replica as health and /metrics show it. */
export interface ReplicaStatus {
  /** host:port/database of its URL (never its password). */
  name: string;
  state: ReplicaState;
  /** Upper bound on how far behind the primary its data is; null before it has caught up once. */
  lagMs: number | null;
  /** WAL bytes the primary had written past its replay position at the last check; null when unknown. */
  lagBytes: number | null;
  /** Why it is down (the last check's error). */
  error?: string;
}

export interface ReplicaSetOptions {
  primaryUrl: string;
  urls: string[];
  maxLagMs: number;
  checkIntervalMs: number;
  poolMax: number;
  features: DriverFeatures;
  logger?: Pick<Logger, 'info' | 'warn'>;
}

interface Replica {
  name: string;
  /** What its reads use (failover.ts): once it is down, its new connections go to the primary. */
  pool: ReplicaPool;
  /** The checks' own connection: a replica busy with reads is still checked on time. */
  check: Knex;
  reachable: boolean;
  standby: boolean;
  replayed: Lsn | null;
  /** Start time of the newest primary sample this replica had replayed: it holds everything committed before. */
  caughtUpAt: number | null;
  checkedAt: number | null;
  error?: string;
  reported: ReplicaState;
}

interface Sample {
  at: number;
  lsn: Lsn;
}

/** Connecting to or waiting on a replica takes at most this long before the read goes to the primary. */
const REPLICA_TIMEOUT_MS = 2_000;

/** host:port/database of a URL, for logs, health and metric labels. */
export function replicaName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'replica';
  }
}

const answerWithin = <T>(p: Promise<T>, ms: number, what: string): Promise<T> => withTimeout(p, ms, `${what} did not answer within ${ms} ms`);

/**
 * The streaming replicas of the primary, and which one a read may use.
 *
 * Every checkIntervalMs it samples the primary's WAL insert position, then each replica's replay
 * position. A replica that has replayed the sample taken at time T holds everything committed
 * before T, so its staleness is at most now − T: a replica whose bound is past maxLagMs, whose check
 * failed, or that is not a standby is out of rotation, and back in as soon as a check finds it
 * caught up. A read that needs a given position (its key's last write, see readYourWrites in the
 * API) only goes to a replica that has replayed it. Every read may fall back to the primary:
 * reader() answers undefined when no replica fits, and a read run through read() that fails on a
 * replica runs again there (failover.ts).
 */
export class ReplicaSet {
  private readonly replicas: Replica[];
  private readonly primaryCheck: Knex;
  private samples: Sample[] = [];
  private layout?: WalLayout;
  private checks?: PeriodicTask;
  private next = 0;

  constructor(
    private readonly primary: Knex,
    private readonly opts: ReplicaSetOptions,
  ) {
    const timeout = Math.min(REPLICA_TIMEOUT_MS, opts.maxLagMs);
    const checkKnex = (url: string) => createPostgresKnex(url, 1, { preparedStatements: false, cancelAbandonedReads: false }, { timeoutMs: timeout });
    this.primaryCheck = checkKnex(opts.primaryUrl);
    const names = opts.urls.map(replicaName);
    this.replicas = opts.urls.map((url, i) => {
      const name = names.indexOf(names[i]!) === i ? names[i]! : `${names[i]}#${i + 1}`;
      const pool = replicaPool(url, opts.primaryUrl, opts.poolMax, opts.features, timeout, () => replica.reported === 'down');
      const replica: Replica = { name, pool, check: checkKnex(url), reachable: false, standby: false, replayed: null, caughtUpAt: null, checkedAt: null, reported: 'starting' };
      return replica;
    });
  }

  /** Checks now, then every checkIntervalMs; resolves after the first check. */
  async start(): Promise<void> {
    const logger = this.opts.logger ?? { warn: () => undefined };
    this.checks ??= periodic({ name: 'read replica check', intervalMs: this.opts.checkIntervalMs, logger, runAtStart: false }, () => this.check());
    await this.checks.runNow();
  }

  /** One round of checks (one at a time: a round asked for while one runs waits for it). */
  checkNow(): Promise<void> {
    return this.checks?.runNow() ?? this.check();
  }

  private async check(): Promise<void> {
    const at = Date.now();
    const timeout = this.opts.checkIntervalMs + REPLICA_TIMEOUT_MS;
    try {
      this.layout ??= await answerWithin(replicationRepository.walLayout(this.primaryCheck), timeout, 'the primary');
      const lsn = walEnd(await answerWithin(replicationRepository.insertPosition(this.primaryCheck), timeout, 'the primary'), this.layout);
      this.samples.push({ at, lsn });
      // Kept while a replica within the bound could still be replaying them.
      const oldest = at - this.opts.maxLagMs - 2 * this.opts.checkIntervalMs;
      while (this.samples.length > 1 && this.samples[0]!.at < oldest) this.samples.shift();
    } catch {
      // Without a fresh sample the replicas' bounds age: past maxLagMs they leave rotation.
    }
    await Promise.all(this.replicas.map((r) => this.checkReplica(r, timeout)));
    for (const r of this.replicas) this.report(r);
  }

  private async checkReplica(r: Replica, timeout: number): Promise<void> {
    try {
      const { standby, replayed } = await answerWithin(replicationRepository.standbyReplay(r.check), timeout, r.name);
      r.reachable = true;
      r.standby = standby;
      r.replayed = replayed;
      r.checkedAt = Date.now();
      r.error = undefined;
      if (replayed === null || !standby) return;
      for (let i = this.samples.length - 1; i >= 0; i--) {
        const s = this.samples[i]!;
        if (s.lsn <= replayed) {
          r.caughtUpAt = Math.max(r.caughtUpAt ?? 0, s.at);
          break;
        }
      }
    } catch (err) {
      r.reachable = false;
      r.error = (err as Error).message;
    }
  }

  /**
   * Runs `read` on `db` (what reader() chose): when that is a replica and it fails the read, the
   * read runs again, whole, on the primary (failover.ts), and the replica is out of rotation until
   * a check finds it answering.
   */
  read<T>(db: Knex, read: (db: Knex) => Promise<T>): Promise<T> {
    const r = this.replicas.find((replica) => replica.pool.knex === db);
    if (!r) return read(db);
    return readWithFailover(db, this.primary, read, (err) => this.fault(r, err));
  }

  /** A read failed on `r`: out of rotation until a check finds it answering. */
  private fault(r: Replica, err: unknown): void {
    if (!r.reachable || !replicaIsDown(err)) return;
    r.reachable = false;
    r.error = (err as Error)?.message ?? String(err);
    this.report(r);
    void this.checkNow();
  }

  private state(r: Replica, now: number): ReplicaState {
    if (r.checkedAt === null && r.reachable === false && r.error === undefined) return 'starting';
    if (!r.reachable) return 'down';
    if (!r.standby) return 'not_a_standby';
    return r.caughtUpAt !== null && now - r.caughtUpAt <= this.opts.maxLagMs ? 'up' : 'lagging';
  }

  /** Logs a change of state: an operator sees a replica leave and rejoin rotation. */
  private report(r: Replica): void {
    const state = this.state(r, Date.now());
    if (state === r.reported) return;
    const previous = r.reported;
    r.reported = state;
    // A replica that stopped answering without closing its connections (hung, or cut off by the
    // network) would hold the reads running on them until their deadline: cut, they run again on the primary.
    if (state === 'down') r.pool.cut();
    const detail = { replica: r.name, from: previous, to: state, ...(r.error ? { error: r.error } : {}) };
    if (state === 'up') this.opts.logger?.info('read replica in rotation', detail);
    else if (previous !== 'starting' || state !== 'down') this.opts.logger?.warn('read replica out of rotation', detail);
    else this.opts.logger?.warn('read replica unreachable at start', detail);
  }

  /**
   * A replica for a read that must see the WAL up to `after` (a key's last write; undefined: none
   * pending), in turn among those that fit; undefined when none does (the read goes to the primary).
   */
  reader(after?: Lsn): Knex | undefined {
    const now = Date.now();
    const n = this.replicas.length;
    for (let i = 0; i < n; i++) {
      const r = this.replicas[(this.next + i) % n]!;
      if (this.state(r, now) !== 'up') continue;
      if (after !== undefined && (r.replayed === null || r.replayed < after)) continue;
      this.next = (this.next + i + 1) % n;
      return r.pool.knex;
    }
    return undefined;
  }

  /** Whether any replica is in rotation (whatever a read needs of it). */
  anyUp(): boolean {
    const now = Date.now();
    return this.replicas.some((r) => this.state(r, now) === 'up');
  }

  /** The primary's WAL end now: once a replica has replayed it, it holds every write committed before this call. */
  async writePosition(): Promise<Lsn> {
    this.layout ??= await replicationRepository.walLayout(this.primary);
    return walEnd(await replicationRepository.insertPosition(this.primary), this.layout);
  }

  status(): ReplicaStatus[] {
    const now = Date.now();
    const newest = this.samples.at(-1);
    return this.replicas.map((r) => ({
      name: r.name,
      state: this.state(r, now),
      lagMs: r.caughtUpAt === null ? null : Math.max(0, now - r.caughtUpAt),
      lagBytes: newest && r.replayed !== null ? Number(newest.lsn > r.replayed ? newest.lsn - r.replayed : 0n) : null,
      ...(r.error && !r.reachable ? { error: r.error } : {}),
    }));
  }

  async close(): Promise<void> {
    await this.checks?.stop();
    await Promise.all([this.primaryCheck.destroy(), ...this.replicas.flatMap((r) => [r.pool.knex.destroy(), r.check.destroy()])]);
  }
}
