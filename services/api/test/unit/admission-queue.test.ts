import { AdmissionQueue, type AdmissionLimits } from '../../src/middleware/admission-queue';

interface Outcome {
  flow: string;
  at: number;
  ms: number;
}

/**
 * A process with `slots` slots whose requests each hold a slot for `serviceMs`, admitting through
 * the queue exactly as the backpressure middleware does; time is jest's fake clock.
 */
function simulate(opts: Partial<AdmissionLimits> & { slots: number; serviceMs: number; weights?: Record<string, number> }) {
  const limits = { capacity: 16 * opts.slots, maxDelayMs: 250, ...opts };
  const queue = new AdmissionQueue(limits, () => Date.now());
  const served: Outcome[] = [];
  const refused: Outcome[] = [];
  const request = (o: { flow?: string; serviceMs?: number; overload?: string; done?: () => void } = {}) => {
    const flow = o.flow ?? 'a';
    const serviceMs = o.serviceMs ?? opts.serviceMs;
    const arrived = Date.now();
    const start = (release: (ms?: number) => void) => {
      setTimeout(() => {
        served.push({ flow, at: arrived, ms: Date.now() - arrived });
        release(serviceMs);
        o.done?.();
      }, serviceMs);
    };
    const refuse = () => {
      refused.push({ flow, at: arrived, ms: Date.now() - arrived });
      o.done?.();
    };
    const entered = queue.enter({ key: flow, weight: opts.weights?.[flow] ?? 1 }, start, refuse, o.overload ?? null);
    if (typeof entered === 'object' && 'refused' in entered) refuse();
    return entered;
  };
  /** Offers `count` requests of `flow` every `everyMs` for `forMs`. */
  const offer = (flow: string, count: number, everyMs: number, forMs: number) => {
    const timer = setInterval(() => {
      for (let i = 0; i < count; i++) request({ flow });
    }, everyMs);
    setTimeout(() => clearInterval(timer), forMs);
  };
  /** 20 requests, so the queue learns the service time. */
  const warm = () => {
    for (let i = 0; i < 20; i++) request({ flow: 'warm' });
    jest.runAllTimers();
    served.length = 0;
  };
  const of = (list: Outcome[], flow: string) => list.filter((o) => o.flow === flow);
  return { queue, request, offer, warm, served, refused, of };
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(0.99 * xs.length))] ?? NaN;
const ms = (xs: Outcome[]) => xs.map((x) => x.ms);
/** Those that arrived a second or more after the first: the remembered gaps are the flood's own. */
const steady = (xs: Outcome[]) => xs.filter((x) => x.at >= xs[0]!.at + 1_000);

describe('AdmissionQueue', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('serves 8 concurrent short requests on a 2-slot queue, none refused, the last after 4 service times', () => {
    const sim = simulate({ slots: 2, serviceMs: 10 });
    for (let i = 0; i < 8; i++) sim.request();
    jest.runAllTimers();
    expect(sim.refused).toHaveLength(0);
    expect(sim.served).toHaveLength(8);
    expect(Math.max(...ms(sim.served))).toBe(40);
  });

  it('serves 8 clients asking one after another without pause for seconds (4 per slot), none refused', () => {
    const sim = simulate({ slots: 2, serviceMs: 10 });
    let stop = false;
    const client = () => sim.request({ done: () => !stop && client() });
    for (let i = 0; i < 8; i++) client();
    jest.advanceTimersByTime(5_000);
    stop = true;
    jest.runAllTimers();
    expect(sim.refused).toHaveLength(0);
    // Throughput stays the slots' rate: 2 slots × 100/s over 5 s.
    expect(sim.served.length).toBeGreaterThanOrEqual(990);
  });

  it('lets a burst wait within the latency budget, and refuses at once the part expected past it', () => {
    const sim = simulate({ slots: 2, serviceMs: 10, capacity: 100 });
    sim.warm();
    for (let i = 0; i < 60; i++) sim.request();
    jest.runAllTimers();
    // 2 start at once, 50 wait at most 50 / 2 × 10 ms = 250 ms; the rest would wait past the budget.
    expect(sim.served).toHaveLength(52);
    expect(sim.refused).toHaveLength(8);
    expect(sim.refused.every((r) => r.ms === 0)).toBe(true);
    expect(Math.max(...ms(sim.served))).toBe(250 + 10);
  });

  it('refuses at once a newcomer beyond the bounded queue when its account is the one filling it', () => {
    const sim = simulate({ slots: 2, serviceMs: 10, capacity: 32 });
    for (let i = 0; i < 40; i++) sim.request();
    jest.runAllTimers();
    expect(sim.served).toHaveLength(34);
    expect(sim.refused).toHaveLength(6);
    expect(sim.refused.every((r) => r.ms === 0)).toBe(true);
  });

  it('makes room in a full queue for another account: the busiest account’s newest waiter is refused instead', () => {
    const sim = simulate({ slots: 2, serviceMs: 10, capacity: 32 });
    for (let i = 0; i < 34; i++) sim.request({ flow: 'a' });
    // b's first request holds less than b's share: it starts at once on a borrowed slot.
    expect(sim.request({ flow: 'b' })).toBe('started');
    expect(sim.refused).toHaveLength(0);
    // Its second waits, in a full queue: a's newest makes room.
    sim.request({ flow: 'b' });
    expect(sim.refused).toEqual([{ flow: 'a', at: expect.any(Number), ms: 0 }]);
    jest.runAllTimers();
    // b's second waits behind one request of a: served second after the three that were in flight.
    expect(sim.of(sim.served, 'b')).toEqual([
      { flow: 'b', at: expect.any(Number), ms: 10 },
      { flow: 'b', at: expect.any(Number), ms: 20 },
    ]);
  });

  it('repays a borrowed slot: the next slot freed starts nothing, and no more than twice the slots are in flight', () => {
    const sim = simulate({ slots: 2, serviceMs: 10 });
    for (let i = 0; i < 10; i++) sim.request({ flow: 'a' });
    expect(sim.queue.inFlight).toBe(2);
    for (const flow of ['b', 'c']) expect(sim.request({ flow })).toBe('started');
    expect(sim.queue.inFlight).toBe(4); // 2 slots and 2 borrowed: d waits
    expect(sim.request({ flow: 'd' })).toEqual({ leave: expect.any(Function) });
    jest.advanceTimersByTime(10);
    // The four finished; two start (d and one of a), not four.
    expect(sim.queue.inFlight).toBe(2);
  });

  it('borrows no slot under overload: the light account waits for its turn', () => {
    const sim = simulate({ slots: 2, serviceMs: 10 });
    for (let i = 0; i < 4; i++) sim.request({ flow: 'a' });
    expect(sim.request({ flow: 'b', overload: 'the database is saturated' })).toEqual({ leave: expect.any(Function) });
    expect(sim.queue.inFlight).toBe(2);
  });

  it('refuses a sustained flood at twice the rate at once, and keeps the accepted requests near the unloaded latency', () => {
    const sim = simulate({ slots: 2, serviceMs: 10 });
    sim.warm();
    sim.offer('a', 2, 5, 10_000);
    jest.advanceTimersByTime(10_000);
    jest.runAllTimers();
    expect(sim.served.length).toBeGreaterThanOrEqual(1990); // 2 slots × 100/s × 10 s
    expect(sim.refused.length).toBeGreaterThanOrEqual(1900);
    expect(p99(ms(sim.refused))).toBeLessThan(50);
    // Past the first second (the gap before the flood bridged): a standing queue holds 4 service times of work.
    expect(p99(ms(steady(sim.served)))).toBeLessThanOrEqual(5 * 10);
  });

  describe('bursts', () => {
    // 2 slots of 10 ms serve 200/s.
    it('serves every request of 150/s offered in bursts of 30 every 200 ms, as offered evenly', () => {
      const even = simulate({ slots: 2, serviceMs: 10 });
      even.warm();
      even.offer('a', 3, 20, 10_000);
      jest.advanceTimersByTime(10_000);
      jest.runAllTimers();
      const bursty = simulate({ slots: 2, serviceMs: 10 });
      bursty.warm();
      bursty.offer('a', 30, 200, 10_000);
      jest.advanceTimersByTime(10_000);
      jest.runAllTimers();
      expect(even.refused).toHaveLength(0);
      expect(bursty.refused).toHaveLength(0);
      expect(bursty.served.length).toBe(even.served.length);
    });

    it('serves bursts at exactly the capacity whose requests arrive over a few milliseconds (30 over 15 ms every 150 ms), all but a few', () => {
      const sim = simulate({ slots: 2, serviceMs: 10 });
      sim.warm();
      const timer = setInterval(() => {
        for (let i = 0; i < 30; i++) setTimeout(() => sim.request(), Math.floor(i / 2));
      }, 150);
      setTimeout(() => clearInterval(timer), 10_000);
      jest.advanceTimersByTime(10_000);
      jest.runAllTimers();
      expect(sim.refused.length).toBeLessThanOrEqual(0.02 * (sim.served.length + sim.refused.length));
    });

    it('keeps serving at capacity offered twice it in bursts of 40 every 100 ms, refusing only the excess and at once', () => {
      const sim = simulate({ slots: 2, serviceMs: 10 });
      sim.warm();
      sim.offer('a', 40, 100, 10_000);
      jest.advanceTimersByTime(10_000);
      jest.runAllTimers();
      expect(sim.served.length).toBeGreaterThanOrEqual(0.9 * 2000);
      expect(p99(ms(sim.refused))).toBeLessThan(50);
    });

    it('holds no refusal past the overload: a burst right after a flood is served whole', () => {
      const sim = simulate({ slots: 2, serviceMs: 10 });
      sim.warm();
      sim.offer('a', 2, 5, 2_000);
      jest.advanceTimersByTime(2_000);
      jest.runAllTimers();
      const refusedBefore = sim.refused.length;
      expect(refusedBefore).toBeGreaterThan(0);
      for (let i = 0; i < 30; i++) sim.request();
      jest.runAllTimers();
      expect(sim.refused).toHaveLength(refusedBefore);
    });
  });

  describe('fairness across accounts', () => {
    it('serves every request of a light account beside a flooding one at once, and the flood keeps the rest', () => {
      const sim = simulate({ slots: 2, serviceMs: 10 });
      sim.warm();
      sim.offer('a', 2, 5, 10_000); // twice what the slots serve
      sim.offer('b', 1, 200, 10_000); // 5/s
      jest.advanceTimersByTime(10_000);
      jest.runAllTimers();
      expect(sim.of(sim.refused, 'b')).toHaveLength(0);
      expect(sim.of(sim.served, 'b')).toHaveLength(50);
      // b waits for no slot: each of its requests is answered in one service time.
      expect(Math.max(...ms(sim.of(sim.served, 'b')))).toBe(10);
      expect(sim.of(sim.served, 'a').length).toBeGreaterThanOrEqual(0.9 * 2000);
    });

    it('serves flooding accounts in proportion to their weights', () => {
      const sim = simulate({ slots: 2, serviceMs: 10, weights: { a: 3, b: 1 } });
      sim.warm();
      sim.offer('a', 2, 5, 10_000);
      sim.offer('b', 2, 5, 10_000);
      jest.advanceTimersByTime(10_000);
      jest.runAllTimers();
      const a = sim.of(sim.served, 'a').length;
      const b = sim.of(sim.served, 'b').length;
      expect(a + b).toBeGreaterThanOrEqual(1990);
      expect(a / b).toBeGreaterThan(2.7);
      expect(a / b).toBeLessThan(3.3);
    });

    it('serves the waiters of several accounts in turn, each account’s in its order', () => {
      const sim = simulate({ slots: 1, serviceMs: 10 });
      for (let i = 0; i < 4; i++) sim.request({ flow: 'a' });
      for (let i = 0; i < 2; i++) sim.request({ flow: 'b' });
      sim.request({ flow: 'c' });
      jest.runAllTimers();
      // b's first borrowed a slot beside a's first (a slot each: the bound of twice the slots); c, with
      // nothing in progress, waits first (a sparse flow goes ahead of the busy ones); then in turn.
      expect(sim.served.map((s) => s.flow).join('')).toBe('abcabaa');
    });

    it('serves a light account next when it must wait (under overload): ahead of the busy account’s waiters', () => {
      const sim = simulate({ slots: 2, serviceMs: 10 });
      for (let i = 0; i < 6; i++) sim.request({ flow: 'a' });
      expect(sim.request({ flow: 'b', overload: 'the database is saturated' })).toEqual({ leave: expect.any(Function) });
      jest.runAllTimers();
      // Two of a in flight; b starts with the first slot freed, beside a's third.
      expect(sim.of(sim.served, 'b')).toEqual([{ flow: 'b', at: expect.any(Number), ms: 20 }]);
      expect(sim.served.map((s) => s.flow).join('')).toBe('aabaaaa');
    });

    it('gives one account no more than its in-flight cap, and another the remaining slot at once', () => {
      const sim = simulate({ slots: 2, slotsPerFlow: 1, serviceMs: 10 });
      for (let i = 0; i < 5; i++) sim.request({ flow: 'a' });
      expect(sim.queue.inFlight).toBe(1);
      expect(sim.request({ flow: 'b' })).toBe('started');
      jest.runAllTimers();
      expect(Math.max(...ms(sim.of(sim.served, 'a')))).toBe(50);
    });

    it('refuses under overload the accounts holding their share of the slots, not an account with nothing in progress', () => {
      const sim = simulate({ slots: 2, serviceMs: 10 });
      sim.request({ flow: 'a' });
      sim.request({ flow: 'a' });
      expect(sim.request({ flow: 'a', overload: 'the database is saturated' })).toEqual({ refused: 'the database is saturated' });
      expect(sim.request({ flow: 'b', overload: 'the database is saturated' })).toEqual({ leave: expect.any(Function) });
      expect(sim.request({ flow: 'b', overload: 'the database is saturated' })).toEqual({ refused: 'the database is saturated' });
    });
  });

  it('starts everything at once without a bound on slots, and under overload still refuses the account holding the most', () => {
    const sim = simulate({ slots: Infinity, serviceMs: 10 });
    for (let i = 0; i < 10; i++) expect(sim.request()).toBe('started');
    expect(sim.request({ overload: 'the server is saturated' })).toEqual({ refused: 'the server is saturated' });
    expect(sim.request({ flow: 'b', overload: 'the server is saturated' })).toBe('started');
  });

  it('refuses a waiter still waiting a service time past the budget (a slow request held the slot)', () => {
    const sim = simulate({ slots: 1, serviceMs: 10, maxDelayMs: 100 });
    sim.request();
    jest.runAllTimers(); // the queue learns the service time: 10 ms
    sim.request({ serviceMs: 1_000 }); // holds the only slot for a second
    sim.request();
    jest.advanceTimersByTime(110);
    expect(sim.refused).toEqual([{ flow: 'a', at: expect.any(Number), ms: 110 }]);
  });

  it('keeps its service time estimate when one request runs for long (to its deadline)', () => {
    const sim = simulate({ slots: 2, serviceMs: 10 });
    sim.request();
    jest.runAllTimers();
    sim.request({ serviceMs: 30_000 });
    jest.runAllTimers();
    expect(sim.queue.serviceMs).toBeCloseTo(10 + 0.1 * (40 - 10));
  });

  it('drops a waiter whose client left, and admits the next one instead', () => {
    const sim = simulate({ slots: 1, serviceMs: 10 });
    sim.request();
    const gone = sim.request();
    sim.request();
    expect(typeof gone === 'object' && 'leave' in gone).toBe(true);
    if (typeof gone === 'object' && 'leave' in gone) gone.leave();
    jest.runAllTimers();
    expect(sim.served).toHaveLength(2);
    expect(sim.refused).toHaveLength(0);
    expect(sim.queue.length).toBe(0);
  });

  it('refuses every newcomer at once when nobody may wait (capacity 0)', () => {
    const sim = simulate({ slots: 1, serviceMs: 10, capacity: 0 });
    sim.request();
    sim.request();
    expect(sim.refused).toEqual([{ flow: 'a', at: expect.any(Number), ms: 0 }]);
  });

  it('refuses few of random arrivals at 90% of the capacity: only a cluster the budget cannot hold', () => {
    // Poisson arrivals at 180/s for 10 s (a fixed seed): now and then a cluster the budget refuses part of.
    const sim = simulate({ slots: 2, serviceMs: 10 });
    let seed = 42;
    const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    for (let at = 0; at < 10_000; at += -Math.log(1 - random()) * (1000 / 180)) setTimeout(() => sim.request(), Math.round(at));
    jest.advanceTimersByTime(10_000);
    jest.runAllTimers();
    expect(sim.refused.length).toBeLessThanOrEqual(0.05 * (sim.served.length + sim.refused.length));
  });
});
