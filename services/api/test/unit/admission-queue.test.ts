import { AdmissionQueue, SHEDDING_HOLD_MS } from '../../src/middleware/admission-queue';

/**
 * A process with `slots` slots whose requests each hold a slot for `serviceMs`, admitting through
 * the queue exactly as the backpressure middleware does; time is jest's fake clock.
 */
function simulate(opts: { slots: number; serviceMs: number; capacity?: number; maxDelayMs?: number; sheddingSlots?: number }) {
  const limits = { slots: opts.slots, capacity: opts.capacity ?? 16 * opts.slots, maxDelayMs: opts.maxDelayMs ?? 250, sheddingSlots: opts.sheddingSlots };
  const queue = new AdmissionQueue(limits, () => Date.now());
  let inFlight = 0;
  let mostInFlightWhileShedding = 0;
  const served: Array<{ at: number; ms: number }> = [];
  const refused: Array<{ at: number; ms: number }> = [];
  const request = (done?: () => void, serviceMs = opts.serviceMs) => {
    const arrived = Date.now();
    const run = () => {
      inFlight++;
      if (queue.slots < opts.slots) mostInFlightWhileShedding = Math.max(mostInFlightWhileShedding, inFlight);
      setTimeout(() => {
        inFlight--;
        queue.served(serviceMs);
        served.push({ at: arrived, ms: Date.now() - arrived });
        while (inFlight < queue.slots && queue.length > 0) queue.admitNext();
        done?.();
      }, serviceMs);
    };
    const refuse = () => {
      refused.push({ at: arrived, ms: Date.now() - arrived });
      done?.();
    };
    if (inFlight < queue.slots && queue.length === 0) return run();
    const waiting = queue.enter(run, refuse);
    if ('refused' in waiting) refuse();
    return waiting;
  };
  return { queue, request, served, refused, mostInFlightWhileShedding: () => mostInFlightWhileShedding };
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(0.99 * xs.length))] ?? NaN;

/** 8 requests at once on 2 slots of 10 ms: all served, the last after 4 service times. */
function expectEightConcurrentServed(sim: ReturnType<typeof simulate>): void {
  for (let i = 0; i < 8; i++) sim.request();
  jest.runAllTimers();
  expect(sim.refused).toHaveLength(0);
  expect(sim.served).toHaveLength(8);
  expect(Math.max(...sim.served.map((s) => s.ms))).toBe(40);
}

/** 8 clients, each asking again when answered, for 5 s on 2 slots of 10 ms: none refused, the slots' rate kept. */
function expectEightClosedLoopClientsServed(sim: ReturnType<typeof simulate>): void {
  let stop = false;
  const client = () => sim.request(() => !stop && client());
  for (let i = 0; i < 8; i++) client();
  jest.advanceTimersByTime(5_000);
  stop = true;
  jest.runAllTimers();
  expect(sim.refused).toHaveLength(0);
  // Throughput stays the slots' rate: 2 slots × 100/s over 5 s.
  expect(sim.served.length).toBeGreaterThanOrEqual(990);
}

/**
 * 20 requests to learn the service time, then 400 requests/s for 10 s where 2 slots of 10 ms serve
 * 200/s: the service times of the requests accepted during the flood.
 */
function flood(sim: ReturnType<typeof simulate>): number[] {
  for (let i = 0; i < 20; i++) sim.request();
  jest.runAllTimers();
  const before = sim.served.length;
  const offer = setInterval(() => {
    sim.request();
    sim.request();
  }, 5);
  jest.advanceTimersByTime(10_000);
  clearInterval(offer);
  jest.runAllTimers();
  return sim.served.slice(before).map((s) => s.ms);
}

describe('AdmissionQueue', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('serves 8 concurrent short requests on a 2-slot queue, none refused', () => {
    expectEightConcurrentServed(simulate({ slots: 2, serviceMs: 10 }));
  });

  it('serves 8 clients asking one after another without pause for seconds (4 per slot), none refused', () => {
    expectEightClosedLoopClientsServed(simulate({ slots: 2, serviceMs: 10 }));
  });

  it('lets a burst on a quiet queue wait within the latency budget, and refuses at once the part expected past it', () => {
    const sim = simulate({ slots: 2, serviceMs: 10, capacity: 100, maxDelayMs: 250 });
    for (let i = 0; i < 20; i++) sim.request(); // warm: the queue learns the service time
    jest.runAllTimers();
    for (let i = 0; i < 60; i++) sim.request();
    jest.runAllTimers();
    // 2 start at once, 50 wait at most 50 / 2 × 10 ms = 250 ms; the rest would wait past the budget.
    expect(sim.served).toHaveLength(20 + 52);
    expect(sim.refused).toHaveLength(8);
    expect(sim.refused.every((r) => r.ms === 0)).toBe(true);
    expect(Math.max(...sim.served.map((s) => s.ms))).toBe(250 + 10);
  });

  it('refuses at once a newcomer beyond the bounded queue, whatever its expected wait', () => {
    const sim = simulate({ slots: 2, serviceMs: 10, capacity: 32 });
    for (let i = 0; i < 40; i++) sim.request();
    jest.runAllTimers();
    expect(sim.served).toHaveLength(34);
    expect(sim.refused).toHaveLength(6);
    expect(sim.refused.every((r) => r.ms === 0)).toBe(true);
  });

  it('refuses a sustained flood at twice the rate at once, and keeps the accepted requests near the unloaded latency', () => {
    const sim = simulate({ slots: 2, serviceMs: 10 });
    const unloaded = 10;
    const accepted = flood(sim);
    expect(accepted.length).toBeGreaterThanOrEqual(1900); // the slots stayed busy
    expect(sim.refused.length).toBeGreaterThanOrEqual(1900);
    expect(p99(sim.refused.map((r) => r.ms))).toBeLessThan(50);
    expect(p99(accepted)).toBeLessThanOrEqual(3 * unloaded);
  });

  it('stops shedding once the overload has passed', () => {
    const sim = simulate({ slots: 1, serviceMs: 10, capacity: 1 });
    sim.request();
    sim.request();
    sim.request(); // the queue (capacity 1) is full: refused, the queue sheds
    expect(sim.refused).toHaveLength(1);
    jest.advanceTimersByTime(SHEDDING_HOLD_MS + 1);
    expect(sim.queue.allowedDelayMs()).toBe(250);
    jest.runAllTimers();
    expect(sim.served).toHaveLength(2);
  });

  it('refuses a waiter still waiting a service time past the budget (a slow request held the slot), without shedding after', () => {
    const sim = simulate({ slots: 1, serviceMs: 10, maxDelayMs: 100 });
    sim.request();
    jest.runAllTimers(); // the queue learns the service time: 10 ms
    sim.request(undefined, 1_000); // holds the only slot for a second
    sim.request();
    jest.advanceTimersByTime(110);
    expect(sim.refused).toEqual([{ at: expect.any(Number), ms: 110 }]);
    expect(sim.queue.allowedDelayMs()).toBe(100);
  });

  it('keeps its service time estimate when one request runs for long (to its deadline)', () => {
    const sim = simulate({ slots: 2, serviceMs: 10 });
    sim.request();
    jest.runAllTimers();
    sim.queue.served(30_000);
    expect(sim.queue.serviceMs).toBeCloseTo(10 + 0.1 * (40 - 10));
  });

  it('drops a waiter whose client left, and admits the next one instead', () => {
    const sim = simulate({ slots: 1, serviceMs: 10 });
    sim.request();
    const gone = sim.request();
    sim.request();
    expect(gone && 'leave' in gone).toBe(true);
    if (gone && 'leave' in gone) gone.leave();
    jest.runAllTimers();
    expect(sim.served).toHaveLength(2);
    expect(sim.refused).toHaveLength(0);
  });

  it('refuses every newcomer at once when nobody may wait (capacity 0)', () => {
    const sim = simulate({ slots: 1, serviceMs: 10, capacity: 0 });
    sim.request();
    sim.request();
    expect(sim.refused).toEqual([{ at: expect.any(Number), ms: 0 }]);
  });

  describe('with one slot while shedding (embedded mode: the event loop is the slot)', () => {
    it('still serves 8 concurrent short requests on 2 slots, none refused, two at a time', () => {
      expectEightConcurrentServed(simulate({ slots: 2, serviceMs: 10, sheddingSlots: 1 }));
    });

    it('serves 8 clients asking one after another on 2 slots, none refused', () => {
      expectEightClosedLoopClientsServed(simulate({ slots: 2, serviceMs: 10, sheddingSlots: 1 }));
    });

    it('runs one request at a time under a sustained flood, refusing the rest at once and keeping the accepted near the unloaded latency', () => {
      const sim = simulate({ slots: 2, serviceMs: 10, sheddingSlots: 1 });
      const accepted = flood(sim);
      expect(sim.mostInFlightWhileShedding()).toBe(1);
      expect(accepted.length).toBeGreaterThanOrEqual(950); // the one slot stayed busy: one waits for it
      expect(sim.refused.length).toBeGreaterThanOrEqual(2900);
      expect(p99(sim.refused.map((r) => r.ms))).toBeLessThan(50);
      expect(p99(accepted)).toBeLessThanOrEqual(3 * 10);
    });

    it('keeps the waiters of a burst on a quiet queue when the burst overflows it (no trimming), each refused only past its budget', () => {
      const sim = simulate({ slots: 2, serviceMs: 10, capacity: 32, sheddingSlots: 1 });
      for (let i = 0; i < 20; i++) sim.request();
      jest.runAllTimers();
      const before = sim.served.length;
      for (let i = 0; i < 40; i++) sim.request();
      // 2 start, 32 wait, 6 find the queue full.
      expect(sim.refused).toHaveLength(6);
      expect(sim.queue.length).toBe(32);
      jest.runAllTimers();
      // One slot while shedding: a waiter still waiting at the budget plus a service time (260 ms) is refused then.
      expect(sim.served.length - before).toBeGreaterThanOrEqual(2 + 24);
      expect(sim.refused.slice(6).every((r) => r.ms >= 260)).toBe(true);
    });

    it('goes back to every slot once the overload has passed', () => {
      const sim = simulate({ slots: 2, serviceMs: 10, capacity: 1, sheddingSlots: 1 });
      sim.request();
      sim.request();
      sim.request();
      sim.request(); // the queue (capacity 1) is full: refused, the queue sheds
      expect(sim.refused).toHaveLength(1);
      expect(sim.queue.slots).toBe(1);
      jest.advanceTimersByTime(SHEDDING_HOLD_MS + 1);
      expect(sim.queue.slots).toBe(2);
      jest.runAllTimers();
      expect(sim.served).toHaveLength(3);
    });
  });
});
