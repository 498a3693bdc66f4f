import { performance } from 'node:perf_hooks';

export interface AdmissionLimits {
  /** Requests served at once (the in-flight bound): a slot frees every `serviceMs / slots` on average. */
  slots: number;
  /** The most requests one flow (an account) is served at once; at most `slots`. */
  slotsPerFlow?: number;
  /** The most requests that may wait; beyond it the busiest flow's newest waiter makes room, or the newcomer is refused. 0: nobody waits. */
  capacity: number;
  /** The latency budget: the longest a request may be expected (and allowed) to wait for a slot. */
  maxDelayMs: number;
}

/** Who asks for a slot: requests of one flow share its fair share. */
export interface FlowKey {
  /** The account (or, before authentication, the caller's address). */
  key: string;
  /** Its share relative to the others' (1: equal); slots go round the waiting flows in proportion. */
  weight: number;
}

/** Hands a request's slot back: `servedMs` when it was answered (it trains the service time), nothing when it was not. */
export type Release = (servedMs?: number) => void;

interface Waiter {
  flow: Flow;
  start: (release: Release) => void;
  /** `reason` when it is not the wait past the budget. */
  refuse: (reason?: string) => void;
  timer?: NodeJS.Timeout;
}

interface Flow {
  key: string;
  weight: number;
  inFlight: number;
  waiting: Waiter[];
  /** Deficit round robin: the requests it may still start in the current round. */
  credit: number;
}

/** Why the queue refuses a request, by the reason's metric label. */
export const REFUSALS = {
  queue_full: 'too many requests waiting',
  over_budget: 'the expected wait is over its budget',
  made_room: 'the server is shedding load from its busiest callers',
} as const;

/** The queue has not been empty for this long: it is standing, not absorbing a burst (CoDel's interval, short). */
const STANDING_AFTER_MS = 50;
/**
 * While standing, a busy flow's newcomer expected to wait more than this many service times is
 * refused. Clients that wait for their answer before asking again (4 per slot: 3 waiting and 1
 * served) wait at most 3.
 */
const STANDING_SERVICE_TIMES = 4;
/** Arrival gaps are remembered over two windows of this length (the longest of the last 0.5 to 1 s). */
const GAP_WINDOW_MS = 500;
/** Weight of each new service time in the moving average. */
const SERVICE_EWMA_WEIGHT = 0.1;
/** A service time counts at most this many times the mean (see served()). */
const OUTLIER_FACTOR = 4;
/** Slots that flows under their fair share may borrow beyond the in-flight bound, per slot (see mayStart()). */
const BORROWED_SLOTS = 1;
/** Weights are clamped to this range, so a round robin pass is bounded. */
const MIN_WEIGHT = 0.01;
const MAX_WEIGHT = 100;

/**
 * Where requests beyond the in-flight bound wait for a slot: one queue per flow (account), served by
 * deficit round robin in proportion to the flows' weights, so a request of a light flow waits behind
 * at most about one request of each busy flow, whatever the busy ones send; when it holds less than
 * its fair share and has nobody waiting it waits for none, starting on a borrowed slot (mayStart()).
 * A newcomer is refused at once, before it costs anything:
 * - when its own expected wait (its place in the round robin, divided among the slots, times the
 *   measured mean service time) is over what it may wait (allowedDelayMs): the latency budget for a
 *   light flow or a burst on a quiet queue, a few service times for a busy flow once the queue
 *   stands, but always enough to bridge the recent gaps between arrivals — a flood refuses its own
 *   excess, a light flow beside it is still queued, and bursts keep the slots busy;
 * - when the queue is full and its flow is the busiest (weighted); otherwise the busiest flow's
 *   newest waiter is refused to make room;
 * - while the database or event loop is saturated (`overload`), when its flow already holds its
 *   fair share of the slots: refusals fall on the flows over their share first.
 * A waiter still waiting a service time past the budget (a slow statement held the slots) is
 * refused then; one whose client leaves is dropped.
 */
export class AdmissionQueue {
  private readonly flows = new Map<string, Flow>();
  /** The flows with waiters, in round-robin order; `turn` is the one whose turn it is. */
  private readonly ring: Flow[] = [];
  private turn = 0;
  private waitingCount = 0;
  private inFlightCount = 0;
  private serviceEstimateMs = 0;
  private lastEmptyAt: number;
  private lastArrivalAt: number;
  /** The longest gap between two arrivals in the current window and in the one before. */
  private gaps = { windowStart: 0, current: 0, previous: 0 };

  constructor(
    private readonly limits: AdmissionLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lastEmptyAt = this.lastArrivalAt = this.gaps.windowStart = now();
  }

  /** The mean time a request holds its slot (moving average of `served`); 0 before the first. */
  get serviceMs(): number {
    return this.serviceEstimateMs;
  }

  get length(): number {
    return this.waitingCount;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  /** The in-flight bound. */
  get slots(): number {
    return this.limits.slots;
  }

  /** Whether every slot is taken (a newcomer would wait). */
  full(): boolean {
    return this.limits.slots > 0 && this.inFlightCount >= this.slots;
  }

  /** The queue has not been empty for STANDING_AFTER_MS. */
  private standing(): boolean {
    return this.waitingCount > 0 && this.now() - this.lastEmptyAt >= STANDING_AFTER_MS;
  }

  private arrived(): void {
    const now = this.now();
    const gaps = this.gaps;
    if (now - gaps.windowStart >= GAP_WINDOW_MS) {
      gaps.previous = now - gaps.windowStart >= 2 * GAP_WINDOW_MS ? 0 : gaps.current;
      gaps.current = 0;
      gaps.windowStart = now;
    }
    gaps.current = Math.max(gaps.current, now - this.lastArrivalAt);
    this.lastArrivalAt = now;
  }

  /**
   * The expected wait a newcomer of `flow` may have. A flow with nobody waiting and less than its
   * fair share of the slots may wait the whole latency budget: a light account beside a flood is
   * queued. So may a busier one on a quiet queue (a burst); once the queue stands, STANDING_SERVICE_TIMES
   * service times, but never less than the longest recent gap between arrivals plus a service time:
   * the queue then holds the work that keeps the slots busy until the next burst.
   */
  allowedDelayMs(flow: FlowKey): number {
    const { maxDelayMs } = this.limits;
    const known = this.flows.get(flow.key);
    if (!known || (known.waiting.length === 0 && known.inFlight < this.fairShare(known)) || !this.standing()) return maxDelayMs;
    const bridge = Math.max(this.gaps.current, this.gaps.previous) + this.serviceEstimateMs;
    return Math.min(maxDelayMs, Math.max(STANDING_SERVICE_TIMES * this.serviceEstimateMs, bridge));
  }

  private get slotsPerFlow(): number {
    const { slots, slotsPerFlow } = this.limits;
    return slotsPerFlow && slotsPerFlow > 0 ? Math.min(slotsPerFlow, slots) : slots;
  }

  /**
   * A request held its slot for `ms`. One outlier (a request that ran to its deadline) moves the
   * estimate at most as far as a request OUTLIER_FACTOR times the mean would.
   */
  private served(ms: number): void {
    if (this.serviceEstimateMs === 0) this.serviceEstimateMs = ms;
    else this.serviceEstimateMs += SERVICE_EWMA_WEIGHT * (Math.min(ms, OUTLIER_FACTOR * this.serviceEstimateMs) - this.serviceEstimateMs);
  }

  /**
   * How long a request of `flow` joining now would be expected to wait for a slot: the requests the
   * round robin starts before it (its own flow's waiters, and each other flow's up to the same number
   * of rounds) shared among the slots, and no faster than its flow's own slots allow.
   */
  expectedDelayMs(flowKey: FlowKey): number {
    const flow = this.flows.get(flowKey.key);
    const own = flow?.waiting.length ?? 0;
    const weight = clampWeight(flowKey.weight);
    const rounds = (own + 1) / weight;
    let ahead = own;
    for (const other of this.ring) if (other !== flow) ahead += Math.min(other.waiting.length, rounds * other.weight);
    const slots = Math.max(1, this.slots);
    return Math.max((ahead + 1) / slots, (own + 1) / Math.max(1, Math.min(slots, this.slotsPerFlow))) * this.serviceEstimateMs;
  }

  /**
   * Asks for a slot for a request of `flowKey`. `start` runs with the slot's release, at once when a
   * slot is free or when one frees for it; `refuse` runs if it waits a service time past the budget
   * or makes room for a lighter flow. Returns 'started', how to drop it from the queue (its client
   * left), or why it is refused at once (the caller answers 503).
   * `overload`: why the process is saturated now (the database or the event loop), if it is.
   */
  enter(
    flowKey: FlowKey,
    start: (release: Release) => void,
    refuse: (reason?: string) => void,
    overload: string | null = null,
  ): 'started' | { leave: () => void } | { refused: string } {
    this.arrived();
    const flow = this.flowFor(flowKey);
    const refused = this.refusal(flow, overload);
    if (refused) {
      this.forgetIfIdle(flow);
      return { refused };
    }
    if (this.mayStart(flow, overload)) {
      this.begin(flow, start);
      return 'started';
    }
    if (this.waitingCount >= this.limits.capacity) this.makeRoom();
    const waiter: Waiter = { flow, start, refuse };
    if (this.limits.maxDelayMs > 0) {
      waiter.timer = setTimeout(() => void (this.remove(waiter) && waiter.refuse()), this.limits.maxDelayMs + this.serviceEstimateMs);
    }
    if (flow.waiting.length === 0) this.joinRing(flow);
    if (this.waitingCount === 0) this.lastEmptyAt = this.now();
    flow.waiting.push(waiter);
    this.waitingCount++;
    return { leave: () => void this.remove(waiter) };
  }

  /**
   * Whether a request of `flow` starts now: a slot is free, or every slot is taken while `flow` holds
   * less than its fair share and none of its requests wait. Then it borrows a slot (up to BORROWED_SLOTS
   * per slot) rather than wait for one of the busy flows' requests to finish: a light account's
   * request waits for nobody. The borrowed slot is repaid by the next slot freed, which starts nothing.
   * No borrowing under overload: the light flow's turn comes next.
   */
  private mayStart(flow: Flow, overload: string | null): boolean {
    if (flow.inFlight >= this.slotsPerFlow || flow.waiting.length > 0) return false;
    const slots = this.slots;
    if (this.inFlightCount < slots) return true;
    if (overload) return false;
    return this.inFlightCount < (1 + BORROWED_SLOTS) * slots && flow.inFlight < this.fairShare(flow);
  }

  private refusal(flow: Flow, overload: string | null): string | null {
    if (overload && flow.inFlight + flow.waiting.length >= this.fairShare(flow)) return overload;
    if (this.mayStart(flow, overload)) return null;
    if (this.limits.capacity === 0 || (this.waitingCount >= this.limits.capacity && this.busiest() === flow)) return REFUSALS.queue_full;
    if (this.limits.maxDelayMs > 0 && this.expectedDelayMs(flow) > this.allowedDelayMs(flow)) return REFUSALS.over_budget;
    return null;
  }

  /** The slots `flow` is due among the flows holding or waiting for one now (itself included), at least one. */
  private fairShare(flow: Flow): number {
    let weights = 0; // the flows known now: those holding or waiting for a slot, and this one
    for (const f of this.flows.values()) weights += f.weight;
    // Without a bound on slots, a share of those in use.
    const slots = Number.isFinite(this.limits.slots) ? this.limits.slots : this.inFlightCount;
    return Math.max(1, (slots * flow.weight) / weights);
  }

  /** The queue is full: the busiest flow's (weighted) newest waiter is refused. */
  private makeRoom(): void {
    const flow = this.busiest();
    const last = flow?.waiting[flow.waiting.length - 1];
    if (!last) return;
    this.remove(last);
    last.refuse(REFUSALS.made_room);
  }

  private busiest(): Flow | undefined {
    let busiest: Flow | undefined;
    for (const f of this.ring) if (!busiest || f.waiting.length / f.weight > busiest.waiting.length / busiest.weight) busiest = f;
    return busiest;
  }

  private begin(flow: Flow, start: (release: Release) => void): void {
    flow.inFlight++;
    this.inFlightCount++;
    let released = false;
    start((servedMs) => {
      if (released) return;
      released = true;
      flow.inFlight--;
      this.inFlightCount--;
      if (servedMs !== undefined) this.served(servedMs);
      this.forgetIfIdle(flow);
      this.dispatch();
    });
  }

  /** Starts waiters while slots are free, the flows taking turns by deficit round robin. */
  private dispatch(): void {
    while (this.inFlightCount < this.slots && this.ring.length > 0) {
      const waiter = this.nextWaiter();
      if (!waiter) return; // every waiting flow holds its own slots
      clearTimeout(waiter.timer);
      this.begin(waiter.flow, waiter.start);
    }
  }

  private nextWaiter(): Waiter | undefined {
    // Each pass credits every eligible flow its weight; at MIN_WEIGHT a flow needs 1 / MIN_WEIGHT passes for a request.
    const visits = this.ring.length * (Math.ceil(1 / MIN_WEIGHT) + 1);
    for (let i = 0; i < visits && this.ring.length > 0; i++) {
      if (this.turn >= this.ring.length) this.turn = 0;
      const flow = this.ring[this.turn]!;
      if (flow.inFlight >= this.slotsPerFlow) {
        this.turn++;
        continue;
      }
      if (flow.credit < 1) flow.credit += flow.weight;
      if (flow.credit < 1) {
        this.turn++;
        continue;
      }
      flow.credit--;
      const waiter = flow.waiting.shift()!;
      if (--this.waitingCount === 0) this.lastEmptyAt = this.now();
      if (flow.waiting.length === 0) this.leaveRing(flow);
      else if (flow.credit < 1) this.turn++;
      return waiter;
    }
    return undefined;
  }

  private flowFor({ key, weight }: FlowKey): Flow {
    let flow = this.flows.get(key);
    if (!flow) this.flows.set(key, (flow = { key, weight: clampWeight(weight), inFlight: 0, waiting: [], credit: 0 }));
    else flow.weight = clampWeight(weight);
    return flow;
  }

  /**
   * A flow starts waiting. One under its fair share (sparse: it never built a queue) goes first,
   * at the turn, so its request starts with the next slot freed, as FQ-CoDel serves new flows
   * before old ones; the busy flows go to the end. A flow that floods always has waiters, so it
   * never jumps ahead.
   */
  private joinRing(flow: Flow): void {
    if (flow.inFlight < this.fairShare(flow) && this.ring.length > 0) {
      if (this.turn >= this.ring.length) this.turn = 0;
      this.ring.splice(this.turn, 0, flow);
    } else this.ring.push(flow);
  }

  private leaveRing(flow: Flow): void {
    const i = this.ring.indexOf(flow);
    if (i < 0) return;
    this.ring.splice(i, 1);
    if (i < this.turn) this.turn--;
    // Past the end: the first flow's turn (a flow that rejoins goes to the end, after everyone else).
    if (this.turn >= this.ring.length) this.turn = 0;
    flow.credit = 0;
    this.forgetIfIdle(flow);
  }

  private forgetIfIdle(flow: Flow): void {
    if (flow.inFlight === 0 && flow.waiting.length === 0) this.flows.delete(flow.key);
  }

  private remove(waiter: Waiter): boolean {
    const { flow } = waiter;
    const i = flow.waiting.indexOf(waiter);
    if (i < 0) return false;
    flow.waiting.splice(i, 1);
    if (--this.waitingCount === 0) this.lastEmptyAt = this.now();
    clearTimeout(waiter.timer);
    if (flow.waiting.length === 0) this.leaveRing(flow);
    return true;
  }
}

const clampWeight = (weight: number): number => Math.min(MAX_WEIGHT, Math.max(MIN_WEIGHT, Number.isFinite(weight) ? weight : 1));
