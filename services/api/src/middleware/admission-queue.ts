import { performance } from 'node:perf_hooks';

interface Waiter {
  admit: () => void;
  refuse: () => void;
  timer?: NodeJS.Timeout;
}

/** The queue has not been empty for this long: it is standing (CoDel's interval)... */
const STANDING_AFTER_MS = 100;
/** ...and a request that joins it then waits at most this long (CoDel's target). */
const WAIT_WHILE_STANDING_MS = 5;

/**
 * Where requests beyond the in-flight bound wait for a slot. A burst on a quiet process (a page
 * loading its panels, a client's parallel calls) is then served instead of refused. Under sustained
 * overload it must not add latency, so it is adaptive LIFO with CoDel (as Facebook's servers do):
 * each freed slot goes to the newest waiter, the oldest is refused at once when it overflows, and
 * once the queue has not been empty for STANDING_AFTER_MS, whoever joins waits at most
 * WAIT_WHILE_STANDING_MS. Otherwise a request waits at most `maxWaitMs`. One whose client leaves
 * while it waits is dropped.
 */
export class AdmissionQueue {
  private readonly waiting: Waiter[] = [];
  private lastEmptyAt = performance.now();

  constructor(
    private readonly capacity: number,
    private readonly maxWaitMs: number,
  ) {}

  /** Queues a request; false when nothing may wait (capacity 0), and the caller refuses it. `leave()` drops it. */
  enter(admit: () => void, refuse: () => void): { leave: () => void } | false {
    if (this.capacity <= 0) return false;
    const waiter: Waiter = { admit, refuse };
    if (this.waiting.length === 0) this.lastEmptyAt = performance.now();
    const standing = performance.now() - this.lastEmptyAt >= STANDING_AFTER_MS;
    const waitMs = standing && this.maxWaitMs > 0 ? Math.min(this.maxWaitMs, WAIT_WHILE_STANDING_MS) : this.maxWaitMs;
    if (waitMs > 0) waiter.timer = setTimeout(() => this.remove(waiter) && refuse(), waitMs);
    this.waiting.push(waiter);
    if (this.waiting.length > this.capacity) {
      const oldest = this.waiting.shift()!;
      clearTimeout(oldest.timer);
      oldest.refuse();
    }
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

  private remove(waiter: Waiter): boolean {
    const i = this.waiting.indexOf(waiter);
    if (i < 0) return false;
    this.waiting.splice(i, 1);
    clearTimeout(waiter.timer);
    if (this.waiting.length === 0) this.lastEmptyAt = performance.now();
    return true;
  }
}
