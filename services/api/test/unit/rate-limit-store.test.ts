import type { Logger } from '@ams/core';
import type { Options } from 'express-rate-limit';
import type { RedisConnection } from '@ams/runtime';
import { ProcessCensus, ResilientStore } from '../../src/middleware/rate-limit-store';

/**
 * A Redis in this process that answers the commands the store sends (its increment and restore
 * scripts, DECR, DEL), on jest's fake clock. `mode`: answering; slow
 * (commands are taken and never answered); down (the client is not ready); a restart empties it.
 */
class FakeRedis {
  mode: 'up' | 'slow' | 'down' = 'up';
  /** Scripts run (the store's increments and restores). */
  evals = 0;
  private readonly keys = new Map<string, { value: number; expiresAt: number }>();
  readonly connection: RedisConnection = {
    isReady: () => this.mode !== 'down',
    client: { sendCommand: (args: string[]) => this.send(args) },
  } as unknown as RedisConnection;

  restart(): void {
    this.keys.clear();
    this.mode = 'up';
  }

  hits(key: string): number {
    return this.live(key)?.value ?? 0;
  }

  private live(key: string) {
    const entry = this.keys.get(key);
    if (entry && entry.expiresAt <= Date.now()) this.keys.delete(key);
    return this.keys.get(key);
  }

  private send(args: string[]): Promise<unknown> {
    if (this.mode === 'slow') return new Promise(() => undefined);
    if (this.mode === 'down') return Promise.reject(new Error('The client is closed'));
    const [command, ...rest] = args;
    switch (command) {
      case 'EVAL': {
        this.evals++;
        if (rest[0]!.includes('INCRBY')) {
          // the store's increment: [script, 1, key, hits, windowMs]
          const [, , key, hits, windowMs] = rest as [string, string, string, string, string];
          const entry = this.live(key) ?? { value: 0, expiresAt: Date.now() + Number(windowMs) };
          entry.value += Number(hits);
          this.keys.set(key, entry);
          return Promise.resolve([entry.value, entry.expiresAt - Date.now()]);
        }
        // the store's restore script: [script, 1, key, want, ttlMs]; never lowers a count
        const [, , key, want, ttl] = rest as [string, string, string, string, string];
        const current = this.live(key)?.value ?? 0;
        if (current >= Number(want)) return Promise.resolve(current);
        this.keys.set(key, { value: Number(want), expiresAt: Date.now() + Number(ttl) });
        return Promise.resolve(Number(want));
      }
      case 'DECR': {
        const entry = this.live(rest[0]!);
        if (entry) entry.value--;
        return Promise.resolve(entry?.value ?? 0);
      }
      case 'DEL':
        this.keys.delete(rest[0]!);
        return Promise.resolve(1);
      default:
        return Promise.reject(new Error(`unexpected command ${command}`));
    }
  }
}

const quiet = { warn: () => undefined } as unknown as Logger;
const LIMIT = 100;
const WINDOW_MS = 60_000;
const PREFIX = 'rl:';

describe('ResilientStore: Redis slow, down, and back', () => {
  let redis: FakeRedis;
  let census: ProcessCensus;
  let stores: ResilientStore[];

  const openStore = () => {
    const store = new ResilientStore(redis.connection, PREFIX, quiet, () => LIMIT, census);
    store.init({ windowMs: WINDOW_MS } as Options);
    stores.push(store);
    return store;
  };
  /** Lets the store's promise chains run on the fake clock. */
  const settle = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    redis = new FakeRedis();
    census = new ProcessCensus(redis.connection, `${PREFIX}processes`);
    census.processes = 4; // the last census saw four API processes
    stores = [];
  });
  afterEach(async () => {
    for (const s of stores) await s.shutdown();
    jest.useRealTimers();
  });

  it('counts in Redis while it answers: two processes share one budget', async () => {
    const a = openStore();
    const b = openStore();
    expect((await a.increment('k')).totalHits).toBe(1);
    expect((await b.increment('k')).totalHits).toBe(2);
    expect(redis.hits(`${PREFIX}k`)).toBe(2);
    expect(a.degraded).toBe(false);
    expect(a.effectiveLimit(LIMIT)).toBe(LIMIT);
  });

  it('does not hold a request for a Redis that does not answer: past 250 ms it counts in process, at its share of the limit', async () => {
    const store = openStore();
    redis.mode = 'slow';
    let info: { totalHits: number } | undefined;
    void store.increment('k').then((i) => (info = i));
    await jest.advanceTimersByTimeAsync(249);
    expect(info).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1);
    await settle();
    expect(info?.totalHits).toBe(1);
    expect(store.degraded).toBe(true);
    expect(store.effectiveLimit(LIMIT)).toBe(LIMIT / 4);
  });

  it('counts in process at once while Redis is down, at its share of the limit', async () => {
    const store = openStore();
    redis.mode = 'down';
    expect((await store.increment('k')).totalHits).toBe(1);
    expect((await store.increment('k')).totalHits).toBe(2);
    expect(store.degraded).toBe(true);
    expect(store.effectiveLimit(LIMIT)).toBe(25);
  });

  it('after a failed call leaves Redis alone for 5 s, then counts there again', async () => {
    const store = openStore();
    redis.mode = 'slow';
    const first = store.increment('k');
    await jest.advanceTimersByTimeAsync(250);
    await first;
    redis.mode = 'up';
    await jest.advanceTimersByTimeAsync(4_000);
    await store.increment('k');
    expect(redis.hits(`${PREFIX}k`)).toBe(0);
    await jest.advanceTimersByTimeAsync(1_000);
    await store.increment('k');
    expect(redis.hits(`${PREFIX}k`)).toBe(1);
    expect(store.degraded).toBe(false);
    expect(store.effectiveLimit(LIMIT)).toBe(LIMIT);
  });

  it('sends the hits it does not wait for together, one command per key every 20 ms, and a hit that waits with them', async () => {
    const store = openStore();
    expect((await store.increment('k')).totalHits).toBe(1); // the first waits: nothing known yet
    const evals = redis.evals;
    // Far from the limit: estimated at once (the count known, the hits on their way, this one).
    for (let i = 2; i <= 30; i++) expect((await store.increment('k')).totalHits).toBe(i);
    expect(redis.hits(`${PREFIX}k`)).toBe(1);
    await jest.advanceTimersByTimeAsync(20);
    expect(redis.hits(`${PREFIX}k`)).toBe(30);
    expect(redis.evals - evals).toBe(1);
    for (let i = 31; i <= 50; i++) await store.increment('k');
    // Past half the limit a hit waits for Redis, and takes the hits still waiting for their batch along.
    expect((await store.increment('k')).totalHits).toBe(51);
    expect(redis.hits(`${PREFIX}k`)).toBe(51);
    expect(redis.evals - evals).toBe(2);
  });

  it('raises a key back to what it knew when Redis comes back empty (restarted), so nobody gets a fresh budget', async () => {
    const store = openStore();
    // Near the limit every hit waits for Redis, so each answer is the count Redis holds.
    for (let i = 0; i < 60; i++) await store.increment('k');
    expect(redis.hits(`${PREFIX}k`)).toBe(60);
    redis.mode = 'down';
    await store.increment('k');
    await store.increment('k'); // 62 known: 60 in Redis, 2 counted while it was away
    redis.restart();
    await jest.advanceTimersByTimeAsync(5_000);
    const info = await store.increment('k');
    expect(info.totalHits).toBe(63);
    expect(redis.hits(`${PREFIX}k`)).toBe(63);
  });

  it('starts a key over when its window ended while Redis was away', async () => {
    const store = openStore();
    for (let i = 0; i < 3; i++) await store.increment('k');
    redis.mode = 'down';
    await jest.advanceTimersByTimeAsync(WINDOW_MS);
    redis.restart();
    expect((await store.increment('k')).totalHits).toBe(1);
  });
});
