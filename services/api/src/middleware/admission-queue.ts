import { performance } from 'node:perf_hooks';

interface Waiter {
  admit: () => void;
  /** `reason` when it is not the wait past the budget. */
  refuse: (reason?: string) => void;
  timer?: NodeJS.Timeout;
}

export interface AdmissionLimits {
  /** Requests served at once (the in-flight bound): a slot frees every `serviceMs / slots` on average. */
  slots: number;
  /** The most requests that may wait; beyond it a newcomer is refused. 0: nobody waits. */
  capacity: number;
  /** The latency budget: the longest a request may be expected (and allowed) to wait for a slot. */
  maxDelayMs: number;
  /**
   * The in-flight bound while shedding, when lower than `slots`. Embedded mode: PGlite runs its
   * statements on the event loop, so the loop itself is the one slot; under overload one request
   * at a time leaves it idle while the model embeds, the time it needs to refuse the rest at once.
   */
  sheddingSlots?: number;
}

/** The queue has not been empty for this long: it is standing, not absorbing a burst (CoDel's interval, short: an overload that starts fills the queue for this long before it is refused). */
const STANDING_AFTER_MS = 50;
/**
 * While standing, a newcomer expected to wait more than this many service times is refused. Clients
 * that wait for their answer before asking again (4 per slot: 3 waiting and 1 served) wait at most 3.
 */
const STANDING_SERVICE_TIMES = 4;
/**
 * While shedding (someone was refused lately), the expected wait allowed is half a service time:
 * on 2 slots one request waits for the next free slot, so the slots stay busy and nobody waits long
 * (on 1 slot, a whole service time: one waits, else the slot would idle between arrivals).
 */
const SHEDDING_SERVICE_TIMES = 0.5;
/** How long after a refusal at the door the queue keeps shedding: an overload that lasts is refused at once. */
export const SHEDDING_HOLD_MS = 1000;
/** Weight of each new service time in the moving average. */
const SERVICE_EWMA_WEIGHT = 0.1;
/** A service time counts at most this many times the mean (see served()). */
const OUTLIER_FACTOR = 4;

/**
 * Where requests beyond the in-flight bound wait for a slot, first come first served. A newcomer is
 * refused at once, before it costs anything, when the queue is full or when its expected wait — the
 * requests ahead of it divided among the slots, times the mean service time — is over the allowed
 * delay:
 * - the latency budget (`maxDelayMs`) for a burst on a quiet queue (a page loading its panels, an
 *   agent's parallel calls, many agents starting together);
 * - STANDING_SERVICE_TIMES service times once the queue has not been empty for STANDING_AFTER_MS: a
 *   steady crowd of clients (four per slot) waits its turn, a growing queue stops growing early;
 * - SHEDDING_SERVICE_TIMES of a service time for SHEDDING_HOLD_MS after a refusal at the door: under
 *   sustained overload the accepted requests hardly wait and the rest are refused at once; the
 *   in-flight bound is then `sheddingSlots`, when set.
 * A waiter still waiting a service time past the budget (the estimate was wrong: a slow statement
 * held the slots) is refused then; one whose client leaves is dropped.
 */
export class AdmissionQueue {
  private readonly waiting: Waiter[] = [];
  private lastEmptyAt: number;
  private shedUntil = -Infinity;
  private serviceEstimateMs = 0;

  constructor(
    private readonly limits: AdmissionLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lastEmptyAt = now();
  }

  /** The mean time a request holds its slot (moving average of `served`); 0 before the first. */
  get serviceMs(): number {
    return this.serviceEstimateMs;
  }

  get length(): number {
    return this.waiting.length;
  }

  /** The in-flight bound now: `sheddingSlots` while shedding, else `slots`. */
  get slots(): number {
    const { slots, sheddingSlots } = this.limits;
    return sheddingSlots && sheddingSlots < slots && this.shedding() ? sheddingSlots : slots;
  }

  private shedding(): boolean {
    return this.now() < this.shedUntil;
  }

  /** The queue has not been empty for STANDING_AFTER_MS. */
  private standing(): boolean {
    return this.waiting.length > 0 && this.now() - this.lastEmptyAt >= STANDING_AFTER_MS;
  }

  /**
   * A request held its slot for `ms`. One outlier (a request that ran to its deadline) moves the
   * estimate at most as far as a request OUTLIER_FACTOR times the mean would.
   */
  served(ms: number): void {
    if (this.serviceEstimateMs === 0) this.serviceEstimateMs = ms;
    else this.serviceEstimateMs += SERVICE_EWMA_WEIGHT * (Math.min(ms, OUTLIER_FACTOR * this.serviceEstimateMs) - this.serviceEstimateMs);
  }

  /** How long a request joining now would be expected to wait for a slot. */
  expectedDelayMs(): number {
    return ((this.waiting.length + 1) / Math.max(1, this.slots)) * this.serviceEstimateMs;
  }

  /** The expected wait a newcomer may have now (see the class comment). */
  allowedDelayMs(): number {
    const { maxDelayMs } = this.limits;
    if (this.shedding()) return Math.min(maxDelayMs, Math.max(SHEDDING_SERVICE_TIMES, 1 / Math.max(1, this.slots)) * this.serviceEstimateMs);
    if (this.standing()) return Math.min(maxDelayMs, STANDING_SERVICE_TIMES * this.serviceEstimateMs);
    return maxDelayMs;
  }

  /**
   * Queues a request, or returns why it is refused (the caller answers 503 at once). `admit` runs
   * when a slot frees for it, `refuse` if it waits a service time past the budget; `leave()` drops it.
   */
  enter(admit: () => void, refuse: (reason?: string) => void): { leave: () => void } | { refused: string } {
    const refused = this.refusal();
    if (refused) {
      const slotsBefore = this.slots;
      const standing = this.standing();
      this.shedUntil = this.now() + SHEDDING_HOLD_MS;
      if (standing && this.slots < slotsBefore) this.trim();
      return { refused };
    }
    const waiter: Waiter = { admit, refuse };
    if (this.waiting.length === 0) this.lastEmptyAt = this.now();
    if (this.limits.maxDelayMs > 0) {
      waiter.timer = setTimeout(() => {
        // Not a sign of overload by itself (one slow statement held the slots): no shedding.
        if (this.remove(waiter)) waiter.refuse();
      }, this.limits.maxDelayMs + this.serviceEstimateMs);
    }
    this.waiting.push(waiter);
    return { leave: () => void this.remove(waiter) };
  }

  /** A slot is free: the longest waiter, if any, takes it. */
  admitNext(): void {
    const next = this.waiting.shift();
    if (this.waiting.length === 0) this.lastEmptyAt = this.now();
    if (!next) return;
    clearTimeout(next.timer);
    next.admit();
  }

  private refusal(): string | null {
    if (this.waiting.length >= this.limits.capacity) return 'too many requests waiting';
    if (this.limits.maxDelayMs > 0 && this.expectedDelayMs() > this.allowedDelayMs()) return 'the expected wait is over its budget';
    return null;
  }

  /**
   * Shedding began on a standing queue (an overload that lasts) and the slots dropped
   * (sheddingSlots): the waiters queued before, under the larger allowance, would now wait several
   * service times each; the newest are refused at once until the last one's expected wait is within
   * the shedding allowance. A burst on a quiet queue keeps its waiters (each still refused past its budget).
   */
  private trim(): void {
    const allowed = this.allowedDelayMs();
    while (this.waiting.length > 0 && (this.waiting.length / Math.max(1, this.slots)) * this.serviceEstimateMs > allowed) {
      const last = this.waiting.pop()!;
      clearTimeout(last.timer);
      last.refuse('the server is shedding load');
    }
    if (this.waiting.length === 0) this.lastEmptyAt = this.now();
  }

  private remove(waiter: Waiter): boolean {
    const i = this.waiting.indexOf(waiter);
    if (i < 0) return false;
    this.waiting.splice(i, 1);
    clearTimeout(waiter.timer);
    if (this.waiting.length === 0) this.lastEmptyAt = this.now();
    return true;
  }
}
