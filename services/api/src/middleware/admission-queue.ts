import { performance } from 'node:perf_hooks';

interface Waiter {
  admit: () => void;
  refuse: () => void;
  joinedAt: number;
  timer?: NodeJS.Timeout;
}

/** The queue has not been empty for this long: it is standing (CoDel's interval)... */
const STANDING_AFTER_MS = 100;
/** ...and a request that joins it then waits at most this long (CoDel's target). */
const WAIT_WHILE_STANDING_MS = 5;
/** After the queue refused someone, it takes nobody for this long: the process is overloaded, not bursting. */
const SHEDDING_HOLD_MS = 1000;

/**
 * Where requests beyond the in-flight bound wait for a slot. A burst on a quiet process (a page
 * loading its panels, a client's parallel calls) is then served instead of refused. Under sustained
 * overload it must not add latency, so it is adaptive LIFO with CoDel (as Facebook's servers do):
 * each freed slot goes to the newest waiter, the oldest is refused at once when it overflows, and
 * once the queue has not been empty for STANDING_AFTER_MS, whoever joins waits at most
 * WAIT_WHILE_STANDING_MS. Otherwise a request waits at most `maxWaitMs`. One whose client leaves
 * while it waits is dropped.
 *
 * The first refusal (overflow or timeout) means overload, not a burst: every waiter that has waited
 * longer than WAIT_WHILE_STANDING_MS is refused with it, and nobody joins for SHEDDING_HOLD_MS, so a
 * full process refuses at once. An always-open queue keeps every slot busy and lets late waiters in,
 * which slowed the accepted requests: bench:load's accepted p99 at twice the sustainable rate was
 * 3.7–4.6× the unloaded p99 with it, 2.1–2.8× with the hold (README "Under overload").
 */
export class AdmissionQueue {
  private readonly waiting: Waiter[] = [];
  private lastEmptyAt = performance.now();
  private shedUntil = 0;

  constructor(
    private readonly capacity: number,
    private readonly maxWaitMs: number,
  ) {}

  /** How many requests wait now. */
  get size(): number {
    return this.waiting.length;
  }

  /** Queues a request; false when nothing may wait (capacity 0, or shedding), and the caller refuses it. `leave()` drops it. */
  enter(admit: () => void, refuse: () => void): { leave: () => void } | false {
    const now = performance.now();
    if (this.capacity <= 0 || now < this.shedUntil) return false;
    const waiter: Waiter = { admit, refuse, joinedAt: now };
    if (this.waiting.length === 0) this.lastEmptyAt = now;
    const standing = now - this.lastEmptyAt >= STANDING_AFTER_MS;
    const waitMs = standing && this.maxWaitMs > 0 ? Math.min(this.maxWaitMs, WAIT_WHILE_STANDING_MS) : this.maxWaitMs;
    if (waitMs > 0) waiter.timer = setTimeout(() => this.remove(waiter) && this.shed(waiter), waitMs);
    this.waiting.push(waiter);
    if (this.waiting.length > this.capacity) this.shed(this.waiting[0]!);
    return { leave: () => void this.remove(waiter) };
  }

  /** A slot is free: the newest waiter, if any, takes it. */
  admitNext(): void {
    const newest = this.waiting.pop();
    if (this.waiting.length === 0) this.lastEmptyAt = performance.now();
    if (!newest) return;
    clearTimeout(newest.timer);
    newest.admit();
  }

  /** Refuses `first` and every waiter already past the standing wait, and closes the queue for a while. */
  private shed(first: Waiter): void {
    const now = performance.now();
    this.shedUntil = now + SHEDDING_HOLD_MS;
    const late = this.waiting.filter((w) => w !== first && now - w.joinedAt > WAIT_WHILE_STANDING_MS);
    for (const waiter of [first, ...late]) {
      this.remove(waiter);
      waiter.refuse();
    }
  }

  private remove(waiter: Waiter): boolean {
    const i = this.waiting.indexOf(waiter);
    if (i < 0) return false;
    this.waiting.splice(i, 1);
    clearTimeout(waiter.timer);
    if (this.waiting.length === 0) this.lastEmptyAt = performance.now();
    return true;
  }
}
