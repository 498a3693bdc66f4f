import { Writable } from 'node:stream';
import winston from 'winston';
import { bearer, createAccount, createTestApp, TestAccount, TestApp } from '@ams/testing';

type Line = Record<string, unknown> & { message: string };

describe('request-scoped logging', () => {
  let t: TestApp;
  let acct: TestAccount;
  const lines: Line[] = [];

  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: 'info' });
    acct = await createAccount(t.ctx);
    // Capture what the app's logger writes (tests run it silent otherwise).
    const sink = new Writable({ objectMode: true, write: (info: Line, _enc, done) => (lines.push(info), done()) });
    t.ctx.logger.clear().add(new winston.transports.Stream({ stream: sink }));
    t.ctx.logger.silent = false;
  });
  afterAll(() => t.close());
  beforeEach(() => (lines.length = 0));

  const by = (requestId: string) => lines.filter((l) => l.request_id === requestId);

  it('every line a request causes, in the route and in the domain, carries its request_id and account_id', async () => {
    const res = await t.request().post('/v2/memories').set(bearer(acct.key)).set('X-Request-ID', 'trace-log-1').send({ content: 'logged create', agent_id: 'logger' });
    expect(res.status).toBe(202);
    // The v2 create embeds in the request here (no queue): the embedding code logs through the request's logger.
    const embedded = lines.find((l) => l.message === 'memory embedded');
    expect(embedded).toMatchObject({ request_id: 'trace-log-1', account_id: acct.accountId, memory_id: res.body.id });
    const request = lines.find((l) => l.message === 'request');
    expect(request).toMatchObject({ request_id: 'trace-log-1', account_id: acct.accountId, method: 'POST', path: '/v2/memories', status: 202 });
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(by('trace-log-1')).toEqual(lines);
  });

  it('an unauthenticated request logs its request_id without an account', async () => {
    const res = await t.request().get('/v1/memories').set('X-Request-ID', 'trace-log-2');
    expect(res.status).toBe(401);
    const request = by('trace-log-2').find((l) => l.message === 'request');
    expect(request).toMatchObject({ status: 401 });
    expect(request).not.toHaveProperty('account_id');
  });
});

describe('a request that writes no line', () => {
  let t: TestApp;
  let acct: TestAccount;

  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: 'warn' });
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('makes no logger of its own (below the request line’s level), and its answer no ETag', async () => {
    const child = t.ctx.logger.child.bind(t.ctx.logger);
    let made = 0;
    t.ctx.logger.child = (meta) => (made++, child(meta));
    try {
      const created = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'a quiet create', agent_id: 'quiet' });
      expect(created.status).toBe(201);
      const found = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'quiet create', agent_id: 'quiet' });
      expect(found.status).toBe(200);
      expect(found.body.data).toHaveLength(1);
      expect(found.headers.etag).toBeUndefined();
      expect(found.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(made).toBe(0);
    } finally {
      t.ctx.logger.child = child;
    }
  });
});
