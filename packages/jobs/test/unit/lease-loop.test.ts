import type { Logger } from '@ams/core';
import { LeasedWork, LeaseLoop, LeaseLoopSettings } from '../../src/lease-loop';

/** A table of due work in memory: each unit runs until the test finishes (or fails) it. */
class Table implements LeasedWork<string> {
  due: string[] = [];
  claims: number[] = [];
  /** How many units had started when each claim was made. */
  startedAtClaim: number[] = [];
  started: string[] = [];
  heartbeats: string[][] = [];
  failHeartbeat = false;
  failRelease = false;
  released: string[][] = [];
  sweeps = 0;
  failClaims = 0;
  failSweep = false;
  /** While set, housekeeping and heartbeats wait for it (a slow database). */
  slow?: Promise<void>;
  private readonly running = new Map<string, { resolve(): void; reject(err: Error): void }>();

  async claim(n: number): Promise<string[]> {
    this.claims.push(n);
    this.startedAtClaim.push(this.started.length);
    if (this.failClaims > 0) {
      this.failClaims--;
      throw new Error('database down');
    }
    return this.due.splice(0, n);
  }

  run(unit: string): Promise<void> {
    this.started.push(unit);
    return new Promise((resolve, reject) => this.running.set(unit, { resolve, reject }));
  }

  async release(units: string[]): Promise<void> {
    if (this.failRelease) throw new Error('database down');
    this.released.push(units);
  }

  async heartbeat(units: string[]): Promise<void> {
    this.heartbeats.push(units);
    await this.slow;
    if (this.failHeartbeat) throw new Error('database down');
  }

  async beforeSweep(): Promise<void> {
    this.sweeps++;
    await this.slow;
    if (this.failSweep) throw new Error('sweep query failed');
  }

  finish(unit: string, err?: Error): void {
    const r = this.running.get(unit)!;
    this.running.delete(unit);
    if (err) r.reject(err);
    else r.resolve();
  }
}

function recordingLogger() {
  const lines: Array<[level: string, message: string]> = [];
  const at = (level: string) => (message: string) => lines.push([level, message]);
  return { lines, logger: { warn: at('warn'), error: at('error'), info: at('info'), debug: at('debug') } as unknown as Logger };
}

/** Lets the promise chains started so far run to their next timer. */
const settle = () => jest.advanceTimersByTimeAsync(0);

describe('LeaseLoop', () => {
  let table: Table;
  let log: ReturnType<typeof recordingLogger>;
  let loop: LeaseLoop<string>;
  const make = (settings: Omit<LeaseLoopSettings, 'name'>) => new LeaseLoop(table, { name: 'test', ...settings }, log.logger);

  beforeEach(() => {
    jest.useFakeTimers();
    table = new Table();
    log = recordingLogger();
  });
  afterEach(async () => {
    // stop's drain deadline is a (fake) timer: run it out.
    const stopped = loop.stop(0);
    await jest.advanceTimersByTimeAsync(0);
    await stopped;
    jest.useRealTimers();
  });

  it('claims as many units as slots are free, runs each, and stops claiming when less is due', async () => {
    loop = make({ concurrency: 3 });
    table.due = ['a', 'b'];
    expect(await loop.drain()).toEqual(['a', 'b']);
    expect(table.claims).toEqual([3]);
    expect(table.started).toEqual(['a', 'b']);
    expect(loop.inFlight).toBe(2);
    expect(loop.held()).toEqual(['a', 'b']);
  });

  it('never holds more than its slots; a finished unit frees a slot and the loop claims the backlog', async () => {
    loop = make({ concurrency: 2 });
    table.due = ['a', 'b', 'c', 'd', 'e'];
    await loop.drain();
    expect(table.started).toEqual(['a', 'b']);
    table.finish('a');
    await settle();
    expect(table.started).toEqual(['a', 'b', 'c']);
    expect(loop.inFlight).toBe(2);
    table.finish('b');
    table.finish('c');
    await settle();
    expect(table.started).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(loop.inFlight).toBe(2);
  });

  it('shares one pass between concurrent drains, and runs one more when asked during a pass', async () => {
    loop = make({ concurrency: 5 });
    table.due = ['a'];
    const first = loop.drain();
    const second = loop.drain();
    table.due.push('b');
    expect(await first).toEqual(['a', 'b']);
    expect(await second).toEqual(['a', 'b']);
    expect(table.claims).toEqual([5, 4]);
  });

  it('sweeps at start and on its interval, housekeeping first; a failed housekeeping is logged and the claim still runs', async () => {
    loop = make({ concurrency: 2, sweepIntervalMs: 1_000 });
    table.due = ['a'];
    expect(await loop.start()).toEqual(['a']);
    expect(table.sweeps).toBe(1);
    table.failSweep = true;
    table.due = ['b'];
    await jest.advanceTimersByTimeAsync(999);
    expect(table.sweeps).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(table.sweeps).toBe(2);
    expect(table.started).toEqual(['a', 'b']);
    expect(log.lines).toContainEqual(['warn', 'test sweep failed']);
  });

  it('skips the ticks of its sweep and heartbeat timers while the last one still runs (a slow database)', async () => {
    loop = make({ concurrency: 2, sweepIntervalMs: 100, heartbeatMs: 100 });
    table.due = ['a'];
    await loop.start();
    let answer!: () => void;
    table.slow = new Promise((resolve) => (answer = resolve));
    await jest.advanceTimersByTimeAsync(1_000);
    expect(table.sweeps).toBe(2);
    expect(table.heartbeats).toHaveLength(1);
    table.slow = undefined;
    answer();
    await jest.advanceTimersByTimeAsync(100);
    expect(table.sweeps).toBe(3);
    expect(table.heartbeats).toHaveLength(2);
  });

  it('gives its slots back when a claim fails, logs it, and claims again on the next drain', async () => {
    loop = make({ concurrency: 2 });
    table.due = ['a', 'b'];
    table.failClaims = 1;
    expect(await loop.drain()).toEqual([]);
    expect(log.lines).toContainEqual(['warn', 'test claim failed; the next sweep tries again']);
    expect(await loop.drain()).toEqual(['a', 'b']);
  });

  it('logs a unit whose work rejects and frees its slot', async () => {
    loop = make({ concurrency: 1 });
    table.due = ['a', 'b'];
    await loop.drain();
    table.finish('a', new Error('boom'));
    await settle();
    expect(log.lines).toContainEqual(['error', 'test work crashed; its claim lapses']);
    expect(table.started).toEqual(['a', 'b']);
  });

  it('claims one named unit when a slot frees up, and gives the slot back when it is not due', async () => {
    loop = make({ concurrency: 1 });
    table.due = ['a'];
    await loop.drain();
    const named = loop.claimOne(async () => 'n');
    await settle();
    expect(table.started).toEqual(['a']);
    table.finish('a');
    await settle();
    expect(table.started).toEqual(['a', 'n']);
    table.finish('n');
    await named;
    await loop.claimOne(async () => undefined);
    table.due = ['z'];
    expect(await loop.drain()).toEqual(['z']);
  });

  it('drains at a given time (a retry whose backoff ends)', async () => {
    loop = make({ concurrency: 1 });
    loop.wakeAt(new Date(Date.now() + 5_000));
    table.due = ['later'];
    await jest.advanceTimersByTimeAsync(4_999);
    expect(table.started).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(table.started).toEqual(['later']);
  });

  it('on stop, claims nothing more, waits for the work in flight, and releases nothing when it finishes in time', async () => {
    loop = make({ concurrency: 2, sweepIntervalMs: 100 });
    table.due = ['a'];
    await loop.start();
    const stopped = loop.stop(1_000);
    table.due = ['b'];
    await jest.advanceTimersByTimeAsync(500);
    table.finish('a');
    expect(await stopped).toEqual([]);
    expect(table.released).toEqual([]);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(table.started).toEqual(['a']);
    expect(await loop.drain()).toEqual([]);
    expect(await loop.sweep()).toEqual([]);
  });

  it('on stop, releases and returns what is still held once the drain time is up', async () => {
    loop = make({ concurrency: 3 });
    table.due = ['a', 'b', 'c'];
    await loop.drain();
    table.finish('b');
    await settle();
    const stopped = loop.stop(2_000);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(await stopped).toEqual(['a', 'c']);
    expect(table.released).toEqual([['a', 'c']]);
  });

  describe('claimLimit: one claim per unit, for units that are batches', () => {
    it('claims one unit at a time and starts each before the next claim, while slots are free', async () => {
      loop = make({ concurrency: 3, claimLimit: 1 });
      table.due = ['a', 'b'];
      expect(await loop.drain()).toEqual(['a', 'b']);
      expect(table.claims).toEqual([1, 1, 1]);
      expect(table.startedAtClaim).toEqual([0, 1, 2]);
    });

    it('stops at its slots and takes up the backlog one claim at a time as units finish', async () => {
      loop = make({ concurrency: 2, claimLimit: 1 });
      table.due = ['a', 'b', 'c'];
      await loop.drain();
      expect(table.claims).toEqual([1, 1]);
      table.finish('a');
      await settle();
      expect(table.started).toEqual(['a', 'b', 'c']);
      expect(table.claims).toEqual([1, 1, 1]);
    });
  });

  describe('notify and batchWaitMs: notifications during a burst share one later claim', () => {
    it('drains at once when idle', async () => {
      loop = make({ concurrency: 2, batchWaitMs: 50 });
      table.due = ['a'];
      loop.notify();
      await settle();
      expect(table.started).toEqual(['a']);
    });

    it('while work is in flight, claims once batchWaitMs after the first notification, whatever came meanwhile', async () => {
      loop = make({ concurrency: 2, batchWaitMs: 50 });
      table.due = ['a'];
      await loop.drain();
      table.due = ['b'];
      loop.notify();
      await jest.advanceTimersByTimeAsync(30);
      table.due.push('c');
      loop.notify();
      await jest.advanceTimersByTimeAsync(19);
      expect(table.claims).toEqual([2]);
      await jest.advanceTimersByTimeAsync(1);
      expect(table.claims).toEqual([2, 1]);
      expect(table.started).toEqual(['a', 'b']);
    });

    it('counts a unit finished within batchWaitMs as busy, and one finished longer ago as idle', async () => {
      loop = make({ concurrency: 2, batchWaitMs: 50 });
      table.due = ['a'];
      await loop.drain();
      table.finish('a');
      await settle();
      table.due = ['b'];
      loop.notify();
      await jest.advanceTimersByTimeAsync(49);
      expect(table.started).toEqual(['a']);
      await jest.advanceTimersByTimeAsync(1);
      expect(table.started).toEqual(['a', 'b']);
      table.finish('b');
      await jest.advanceTimersByTimeAsync(51);
      table.due = ['c'];
      loop.notify();
      await settle();
      expect(table.started).toEqual(['a', 'b', 'c']);
    });

    it('leaves the backlog to a pending flush when a unit finishes, so it is claimed with what arrived', async () => {
      loop = make({ concurrency: 1, claimLimit: 1, batchWaitMs: 50 });
      table.due = ['a', 'b'];
      await loop.drain();
      loop.notify();
      table.finish('a');
      await settle();
      expect(table.started).toEqual(['a']);
      await jest.advanceTimersByTimeAsync(50);
      expect(table.started).toEqual(['a', 'b']);
    });

    it('with drainAfterEach, a finished unit claims what became due unannounced; without it, that waits for a sweep', async () => {
      loop = make({ concurrency: 2 });
      table.due = ['a'];
      await loop.drain();
      table.due = ['b'];
      table.finish('a');
      await settle();
      expect(table.started).toEqual(['a']);
      await loop.stop();
      loop = make({ concurrency: 2, drainAfterEach: true });
      table.due = ['c'];
      await loop.drain();
      table.due = ['d'];
      table.finish('c');
      await settle();
      expect(table.started).toEqual(['a', 'c', 'd']);
    });

    it('on stop, a pending flush claims nothing', async () => {
      loop = make({ concurrency: 2, batchWaitMs: 50 });
      table.due = ['a'];
      await loop.drain();
      loop.notify();
      table.due = ['b'];
      const stopped = loop.stop(0);
      await settle();
      await stopped;
      expect(jest.getTimerCount()).toBe(0);
      await jest.advanceTimersByTimeAsync(100);
      expect(table.claims).toEqual([2]);
      loop.notify();
      await jest.advanceTimersByTimeAsync(100);
      expect(table.claims).toEqual([2]);
    });
  });

  describe('heartbeatMs: the claims held are kept alive', () => {
    it('beats over the units held on its interval, skips a beat when none is held, and logs a failed beat', async () => {
      loop = make({ concurrency: 2, heartbeatMs: 100 });
      table.due = ['a', 'b'];
      await loop.start();
      await jest.advanceTimersByTimeAsync(100);
      expect(table.heartbeats).toEqual([['a', 'b']]);
      table.finish('a');
      table.failHeartbeat = true;
      await jest.advanceTimersByTimeAsync(100);
      expect(table.heartbeats).toEqual([['a', 'b'], ['b']]);
      expect(log.lines).toContainEqual(['warn', 'test heartbeat failed']);
      table.finish('b');
      await jest.advanceTimersByTimeAsync(300);
      expect(table.heartbeats).toHaveLength(2);
    });

    it('beats through the drain at shutdown, and not for the claims it released after it', async () => {
      loop = make({ concurrency: 1, heartbeatMs: 100 });
      table.due = ['a'];
      await loop.start();
      const stopped = loop.stop(250);
      await jest.advanceTimersByTimeAsync(250);
      expect(await stopped).toEqual(['a']);
      expect(table.heartbeats).toEqual([['a'], ['a']]);
      await jest.advanceTimersByTimeAsync(500);
      expect(table.heartbeats).toHaveLength(2);
    });
  });

  it('logs a failed release at shutdown with its hint, and returns nothing released', async () => {
    loop = make({ concurrency: 1, releaseFailedHint: 'they go stale' });
    table.due = ['a'];
    await loop.drain();
    table.failRelease = true;
    const stopped = loop.stop(100);
    await jest.advanceTimersByTimeAsync(100);
    expect(await stopped).toEqual([]);
    expect(log.lines).toContainEqual(['warn', 'could not release test claims; they go stale']);
  });

  it('without a hint, a failed release says the claims lapse', async () => {
    loop = make({ concurrency: 1 });
    table.due = ['a'];
    await loop.drain();
    table.failRelease = true;
    const stopped = loop.stop(100);
    await jest.advanceTimersByTimeAsync(100);
    expect(await stopped).toEqual([]);
    expect(log.lines).toContainEqual(['warn', 'could not release test claims; they are retried when they lapse']);
  });
});
