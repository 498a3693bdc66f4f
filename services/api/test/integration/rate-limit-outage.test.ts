import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { censusFor } from '../../src/middleware/rate-limit-store';
import { freePort, startRedis, stopProcess, waitFor } from '@ams/testing';
import { bearer, createAccount, createTestApp, expectError, TestApp } from '@ams/testing';

/** Rate limits with a Redis of this test's own, which it kills and restarts. */
describe('rate limits while Redis is away and after it restarts', () => {
  let port: number;
  let redis: ChildProcess | undefined;
  const apps: TestApp[] = [];
  const prefix = `${process.env.REDIS_KEY_PREFIX}:rlo-${crypto.randomBytes(4).toString('hex')}`;
  const app = async () => {
    const t = await createTestApp({ RATE_LIMIT_PER_MINUTE: '10', REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_KEY_PREFIX: prefix });
    apps.push(t);
    return t;
  };
  const get = (t: TestApp, key: string) => t.request().get('/v1/api-keys?limit=1').set(bearer(key));

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
  });
  afterAll(async () => {
    for (const t of apps) await t.close();
    await stopProcess(redis, 'SIGKILL');
  });

  it('two API processes split the budget while Redis is down instead of each allowing all of it', async () => {
    const a = await app();
    const b = await app();
    // Both have checked in; each now knows there are two.
    for (const t of [a, b]) await censusFor(t.ctx.redis!, prefix).checkIn();
    expect(censusFor(a.ctx.redis!, prefix).processes).toBe(2);
    expect(censusFor(b.ctx.redis!, prefix).processes).toBe(2);

    await stopProcess(redis, 'SIGKILL');
    await waitFor(() => !a.ctx.redis!.isReady() && !b.ctx.redis!.isReady(), 10_000, 'clients notice Redis is gone');

    const acct = await createAccount(a.ctx);
    const statuses: number[] = [];
    for (const t of [a, b]) {
      for (let i = 0; i < 6; i++) {
        const res = await get(t, acct.key);
        statuses.push(res.status);
        if (res.status === 200) expect(res.headers['x-ratelimit-limit']).toBe('5');
      }
    }
    // 5 + 5 accepted across the two processes: the configured 10, not 20.
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expectError(await get(a, acct.key), 429, 'rate_limit_exceeded');
  });

  it('a restarted, empty Redis gets the counts back instead of a fresh budget', async () => {
    redis = await startRedis(port);
    const a = apps[0]!;
    await waitFor(() => a.ctx.redis!.isReady(), 15_000, 'client reconnects');
    // The in-process fallback retries Redis a few seconds after a failure: wait for a request counted there.
    const acct = await createAccount(a.ctx);
    await waitFor(async () => (await get(a, acct.key)).headers['x-ratelimit-limit'] === '10', 15_000, 'counting in Redis again');
    for (let i = 0; i < 6; i++) expect((await get(a, acct.key)).status).toBe(200); // 7 used

    await stopProcess(redis, 'SIGKILL');
    await waitFor(() => !a.ctx.redis!.isReady(), 10_000, 'client notices Redis is gone');
    redis = await startRedis(port); // no persistence: every key is gone
    await waitFor(() => a.ctx.redis!.isReady(), 15_000, 'client reconnects');

    const res = await get(a, acct.key);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('2'); // 8 of 10, not 1 of 10
    expect((await get(a, acct.key)).status).toBe(200);
    expect((await get(a, acct.key)).status).toBe(200);
    expectError(await get(a, acct.key), 429, 'rate_limit_exceeded');
  });

  /** The key's count in this test's Redis, once it has one. */
  const countInRedis = async (t: TestApp) => {
    const [key] = await t.ctx.redis!.client.keys(`${prefix}:rl:api:key:*`);
    return key ? Number(await t.ctx.redis!.client.get(key)) : 0;
  };

  it('a Redis that answers nothing (paused) holds no request: counting goes on in process at the share', async () => {
    const t = await app();
    await waitFor(() => t.ctx.redis!.isReady(), 15_000, 'client connected');
    const acct = await createAccount(t.ctx);
    await waitFor(async () => (await get(t, acct.key)).headers['x-ratelimit-limit'] === '10', 15_000, 'counting in Redis');
    // Past half its budget, a key's requests wait for Redis's count (far from it they need not).
    while (Number((await get(t, acct.key)).headers['x-ratelimit-remaining']) > 4);
    // SIGSTOP: the connection stays open, so only a wait that gives up tells the client Redis is gone.
    redis!.kill('SIGSTOP');
    try {
      const res = await get(t, acct.key);
      expect(res.status).toBe(200);
      expect(Number(res.headers['x-ratelimit-limit'])).toBeLessThanOrEqual(10);
    } finally {
      redis!.kill('SIGCONT');
    }
  });

  it('far from its limit a request does not wait for Redis, and its hit is still counted there', async () => {
    const t = await app();
    await waitFor(async () => t.ctx.redis!.isReady() && (await t.ctx.redis!.client.ping()) === 'PONG', 15_000, 'client connected');
    const acct = await createAccount(t.ctx);
    for (const k of await t.ctx.redis!.client.keys(`${prefix}:rl:api:key:*`)) await t.ctx.redis!.client.del(k);
    const first = await get(t, acct.key);
    expect(first.headers['x-ratelimit-remaining']).toBe('9'); // counted in Redis, waited for
    redis!.kill('SIGSTOP');
    let res;
    try {
      res = await get(t, acct.key);
    } finally {
      redis!.kill('SIGCONT');
    }
    // Answered from the count Redis gave a moment ago plus this hit: the whole limit, not a share.
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('10');
    expect(res.headers['x-ratelimit-remaining']).toBe('8');
    // The hit sent while Redis was paused is counted once it answers.
    await waitFor(async () => (await countInRedis(t)) === 2, 10_000, 'the second hit counted in Redis');
  });
});
