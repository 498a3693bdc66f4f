import crypto from 'node:crypto';
import { bearer, createAccount, createTestApp, expectError, TestApp } from '@ams/testing';

const freshPrefix = () => `${process.env.REDIS_KEY_PREFIX}:rl-${crypto.randomBytes(4).toString('hex')}`;

describe('rate limiting', () => {
  const apps: TestApp[] = [];
  const app = async (env: Record<string, string>) => {
    const t = await createTestApp({ REDIS_KEY_PREFIX: freshPrefix(), ...env });
    apps.push(t);
    return t;
  };
  afterAll(async () => {
    for (const t of apps) await t.close();
  });

  it('accepts exactly 100 requests per key per minute; the 101st gets 429 with Retry-After', async () => {
    const t = await app({ RATE_LIMIT_PER_MINUTE: '100' });
    const acct = await createAccount(t.ctx);
    for (let i = 1; i <= 100; i++) {
      const res = await t.request().get('/v1/api-keys?limit=1').set(bearer(acct.key));
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(100 - i));
    }
    const res = await t.request().get('/v1/api-keys').set(bearer(acct.key));
    const body = expectError(res, 429, 'rate_limit_exceeded');
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(body.message).toBe(`Rate limit exceeded. Retry in ${retryAfter} seconds.`);
    // Another key of the same account has its own budget.
    expect((await t.request().get('/v1/api-keys').set(bearer(await acct.keyWith(['admin'])))).status).toBe(200);
  });

  it('sends the rate headers on 2xx and 4xx responses, Reset in Unix seconds', async () => {
    const t = await app({ RATE_LIMIT_PER_MINUTE: '100' });
    const acct = await createAccount(t.ctx);
    const now = Math.floor(Date.now() / 1000);
    const requests = [
      () => t.request().get('/v1/api-keys').set(bearer(acct.key)),
      () => t.request().post('/v1/api-keys').set(bearer(acct.key)).send({}),
      () => t.request().get('/v1/api-keys'),
      () => t.request().get('/v1/health'),
    ];
    for (const send of requests) {
      // A counter's window opens at its first request, while it is being answered: its reset is at
      // most a minute after the answer came (in whole seconds, rounded up).
      const res = await send();
      const answeredAt = Date.now() / 1000;
      expect(res.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
      expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(now);
      expect(reset).toBeLessThanOrEqual(Math.ceil(answeredAt + 60));
    }
  });

  it('limits unauthenticated requests per IP, failed authentications included', async () => {
    const t = await app({ UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '3' });
    expect((await t.request().get('/v1/health')).status).toBe(200);
    expect((await t.request().get('/v1/api-keys')).status).toBe(401);
    expect((await t.request().get('/v1/api-keys').set(bearer('mem_wrong'))).status).toBe(401);
    expectError(await t.request().get('/v1/health'), 429, 'rate_limit_exceeded');
  });

  it('shares one budget across API processes through Redis', async () => {
    const prefix = freshPrefix();
    const a = await app({ RATE_LIMIT_PER_MINUTE: '10', REDIS_KEY_PREFIX: prefix });
    const b = await app({ RATE_LIMIT_PER_MINUTE: '10', REDIS_KEY_PREFIX: prefix });
    const acct = await createAccount(a.ctx);
    for (let i = 0; i < 5; i++) expect((await a.request().get('/v1/api-keys').set(bearer(acct.key))).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await b.request().get('/v1/api-keys').set(bearer(acct.key))).status).toBe(200);
    expectError(await a.request().get('/v1/api-keys').set(bearer(acct.key)), 429, 'rate_limit_exceeded');
    expectError(await b.request().get('/v1/api-keys').set(bearer(acct.key)), 429, 'rate_limit_exceeded');
  });

  it('keeps limiting in process when Redis is unreachable', async () => {
    const t = await app({ RATE_LIMIT_PER_MINUTE: '3', REDIS_URL: 'redis://127.0.0.1:1' });
    const acct = await createAccount(t.ctx);
    for (let i = 0; i < 3; i++) {
      const res = await t.request().get('/v1/api-keys').set(bearer(acct.key));
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
    }
    expectError(await t.request().get('/v1/api-keys').set(bearer(acct.key)), 429, 'rate_limit_exceeded');
  });
});
