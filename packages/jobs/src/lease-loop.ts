import { allSettledWithin, type Logger, SingleFlight } from '@ams/core';
import { Slots } from './slots';

/** What a lease loop does with its work: the database holds the work, the loop only claims and runs it. */
export interface LeasedWork<T> {
  /** Claims up to `n` units of due work; fewer, or none, when less is due. */
  claim(n: number): Promise<T[]>;
  /** One claimed unit's work. Handles its own failures; a rejection is only logged (the claim lapses). */
  run(unit: T): Promise<void>;
  /** Gives claims back, due at once for another process (shutdown after the drain time). */
  release(units: T[]): Promise<void>;
  /** Housekeeping before a sweep claims (e.g. ending work whose every claimant died); failures are logged. */
  beforeSweep?(): Promise<void>;
  /** Keeps the claims of long work alive (called every `heartbeatMs` while units are held); failures are logged. */
  heartbeat?(units: T[]): Promise<void>;
}

export interface LeaseLoopSettings {
  /** Names the loop in its log lines (e.g. 'embedding', 'webhook'). */
  name: string;
  /** Units in flight at once. */
  concurrency: number;
  /** `start` sweeps on this interval; without it, sweeps are called from outside. */
  sweepIntervalMs?: number;
  /**
   * Most units one claim asks for (default: every free slot). 1 starts each unit as soon as it is
   * claimed, for work whose unit is itself a batch claimed in one statement.
   */
  claimLimit?: number;
  /** `notify` while busy claims this much later, so work arriving meanwhile is claimed together (default 0). */
  batchWaitMs?: number;
  /**
   * Drain whenever a unit finishes, not only when the last pass ran out of slots: picks up work that
   * became due unannounced (a released claim, a retry its timer just missed) before the next sweep.
   * For units whose claim is cheap next to their run (a batch).
   */
  drainAfterEach?: boolean;
  /** From `start` until `stop` has drained, the work's `heartbeat` runs on this interval over the units held. */
  heartbeatMs?: number;
  /** The end of the log line when a release fails at shutdown (default 'they are retried when they lapse'). */
  releaseFailedHint?: string;
}

/**
 * The claim-and-lease loop of a worker whose schedule is a table: claims due work with a lease
 * while slots are free, runs each unit, keeps what is in flight, sweeps on a timer for work no
 * notification announced, and on shutdown drains, then releases what is still held. Concurrent
 * drains share one pass; a drain that stopped for want of slots resumes as a slot frees up.
 * Optionally it beats a heartbeat over the claims it holds, and gathers notifications that arrive
 * while it is busy into one later claim (`notify`, `batchWaitMs`).
 */
export class LeaseLoop<T> {
  private readonly slots: Slots;
  private readonly inflight = new Map<number, { unit: T; task: Promise<void> }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly pass = new SingleFlight(() => this.drainPass());
  private passClaims: T[] = [];
  private sweepTimer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  private flushTimer?: NodeJS.Timeout;
  /** The timers whose last tick is still running. */
  private readonly ticking = new Set<'sweep' | 'heartbeat'>();
  private seq = 0;
  /** When the last unit finished (Date.now()); `notify` treats the loop as idle batchWaitMs after it. */
  private lastRunEnd = 0;
  /** The last pass filled every slot: more may be due, so drain again when a slot frees up. */
  private backlog = false;
  private stopped = false;

  constructor(
    private readonly work: LeasedWork<T>,
    private readonly settings: LeaseLoopSettings,
    private readonly logger: Logger,
  ) {
    this.slots = new Slots(settings.concurrency);
  }

  get inFlight(): number {
    return this.inflight.size;
  }

  /** The units claimed and not yet finished (to extend or hand back their leases). */
  held(): T[] {
    return [...this.inflight.values()].map((f) => f.unit);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Sweeps at once (a restarted process resumes where a dead one stopped), then on the interval. */
  start(): Promise<T[]> {
    if (this.settings.sweepIntervalMs) this.sweepTimer = setInterval(() => this.tick('sweep'), this.settings.sweepIntervalMs);
    if (this.settings.heartbeatMs && this.work.heartbeat) this.heartbeatTimer = setInterval(() => this.tick('heartbeat'), this.settings.heartbeatMs);
    return this.sweep();
  }

  /**
   * A timer's tick, skipped while the last one it started still runs: on a slow database (a
   * multi-shard statement on a loaded Citus took 0.7 s against a 0.3 s interval) overlapping ticks
   * would pile up on the pool and starve the claims and completions they exist to help.
   */
  private tick(kind: 'sweep' | 'heartbeat'): void {
    if (this.ticking.has(kind)) return;
    this.ticking.add(kind);
    void (kind === 'sweep' ? this.sweep() : this.heartbeat()).finally(() => this.ticking.delete(kind));
  }

  /**
   * Work has arrived (a notification only says so). Idle — nothing in flight, nothing finished
   * within batchWaitMs — drain at once, since waiting would only delay it. Otherwise a burst is
   * under way: drain batchWaitMs later, claiming together whatever arrives meanwhile.
   */
  notify(): void {
    if (this.stopped || this.flushTimer) return;
    const waitMs = this.settings.batchWaitMs ?? 0;
    if (this.inflight.size === 0 && Date.now() - this.lastRunEnd > waitMs) {
      void this.drain();
      return;
    }
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.drain();
    }, waitMs);
  }

  /** Housekeeping, then a drain: resolves with the units this drain claimed. */
  async sweep(): Promise<T[]> {
    if (this.stopped) return [];
    if (this.work.beforeSweep) {
      await this.work.beforeSweep().catch((err: Error) => {
        this.logger.warn(`${this.settings.name} sweep failed`, { error: err.message });
      });
    }
    return this.drain();
  }

  /** Claims and starts work while slots are free and work is due; resolves with what it claimed. */
  drain(): Promise<T[]> {
    if (!this.pass.current) this.passClaims = [];
    const claims = this.passClaims;
    return this.pass.run().then(() => claims);
  }

  /**
   * One unit named by a notification: waits for a free slot, then claims it with `claimOne`
   * (undefined: not due, taken or finished) and runs it. Never rejects.
   */
  async claimOne(claimOne: () => Promise<T | undefined>): Promise<void> {
    if (this.stopped) return;
    await this.slots.acquire();
    let unit: T | undefined;
    try {
      if (!this.stopped) unit = await claimOne();
    } catch (err) {
      this.logger.warn(`${this.settings.name} claim failed; the next sweep tries again`, { error: (err as Error).message });
    }
    if (unit === undefined) {
      this.slots.release();
      return;
    }
    await this.runUnit(unit);
  }

  /** Drains at `when` (a retry's backoff is over) rather than at the next sweep. */
  wakeAt(when: Date): void {
    if (this.stopped) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        void this.drain();
      },
      Math.max(0, when.getTime() - Date.now()),
    );
    timer.unref();
    this.timers.add(timer);
  }

  private async drainPass(): Promise<boolean> {
    const claims = this.passClaims;
    for (;;) {
      if (this.stopped) return false;
      const wanted = this.slots.takeUpTo(Math.min(this.settings.claimLimit ?? this.settings.concurrency, this.settings.concurrency));
      if (wanted === 0) {
        this.backlog = true;
        return false;
      }
      let units: T[];
      try {
        units = await this.work.claim(wanted);
      } catch (err) {
        this.slots.release(wanted);
        this.logger.warn(`${this.settings.name} claim failed; the next sweep tries again`, { error: (err as Error).message });
        return false;
      }
      this.slots.release(wanted - units.length);
      for (const unit of units) void this.runUnit(unit);
      claims.push(...units);
      if (units.length < wanted) {
        this.backlog = false;
        return true;
      }
    }
  }

  /** Runs one claimed unit; its slot is already taken and is released at the end. */
  private runUnit(unit: T): Promise<void> {
    const id = ++this.seq;
    const task = this.work
      .run(unit)
      .catch((err: Error) => {
        this.logger.error(`${this.settings.name} work crashed; its claim lapses`, { error: err.message });
      })
      .finally(() => {
        this.inflight.delete(id);
        this.slots.release();
        this.lastRunEnd = Date.now();
        // A pending flush claims the backlog together with what arrived meanwhile.
        if ((this.backlog || this.settings.drainAfterEach) && !this.stopped && !this.flushTimer) void this.drain();
      });
    this.inflight.set(id, { unit, task });
    return task;
  }

  private async heartbeat(): Promise<void> {
    const held = this.held();
    if (held.length === 0 || !this.work.heartbeat) return;
    await this.work.heartbeat(held).catch((err: Error) => {
      this.logger.warn(`${this.settings.name} heartbeat failed`, { error: err.message });
    });
  }

  /**
   * Claims nothing new and waits up to `drainMs` for the work in flight; the units still held after
   * that are released (a late outcome is the work's to discard, by its claim's fence) and returned.
   * The heartbeat beats until the drain ends, so a long drain is not mistaken for a death.
   */
  async stop(drainMs = Number.POSITIVE_INFINITY): Promise<T[]> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.pass.current;
    const drained = await allSettledWithin([...this.inflight.values()].map((f) => f.task), drainMs);
    clearInterval(this.heartbeatTimer);
    if (drained) return [];
    const held = this.held();
    try {
      await this.work.release(held);
    } catch (err) {
      const hint = this.settings.releaseFailedHint ?? 'they are retried when they lapse';
      this.logger.warn(`could not release ${this.settings.name} claims; ${hint}`, { error: (err as Error).message });
      return [];
    }
    return held;
  }
}
