import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDatabase, Database, Knex } from '@ams/db';
import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp, testBackend, waitFor } from '@ams/testing';

/**
 * Reads stuck behind a lock the test holds on `memories` from a connection of its own: what a slow
 * query looks like from the server, without any hook in the service. PostgreSQL only: PGlite runs one
 * statement at a time in-process and cannot interrupt it (packages/db abandonable.test.ts covers it).
 */
const onPostgres = testBackend() === 'postgres' ? describe : describe.skip;

onPostgres('reads nobody waits for are abandoned', () => {
  let t: TestApp;
  let acct: TestAccount;
  let server: http.Server;
  let port: number;
  let holder: Database;
  let lock: Knex.Transaction | undefined;

  const serve = async (env: Record<string, string>) => {
    // The app's own periodic memory work (expiry sweep, re-tiering) would wait on the test's lock
    // beside the request's statement: kept off, so the only statement stuck is the request's.
    t = await createTestApp({ MEMORY_SWEEP_INTERVAL_MS: '3600000', RETIERING_INTERVAL_MS: '0', ...env }, { backend: 'postgres' });
    acct = await createAccount(t.ctx);
    server = http.createServer(t.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };
  beforeAll(async () => {
    holder = await createDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', dbPoolMax: 2 });
  });
  afterAll(() => holder.close());
  afterEach(async () => {
    await lock?.rollback();
    lock = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await t.close();
  });

  const holdMemoriesLock = async (table = 'memories') => {
    lock = await holder.knex.transaction();
    await lock.raw(`lock table ${table} in access exclusive mode`);
  };
  /** The app's statements on `table` now running (waiting for the lock included), the holder's aside. */
  const stuck = async (table = 'memories') =>
    (
      await holder.knex.raw(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and state = 'active' and query ilike ?
            and pid <> pg_backend_pid() and pid <> (select pid from pg_locks where locktype = 'relation' and mode = 'AccessExclusiveLock' and granted and relation = ?::regclass)`,
        // The name quoted (knex's builder) or bare (the raw nearest-neighbour statements).
        [`%${table}%`, table],
      )
    ).rows[0].n as number;

  /** Sends a request and drops the connection once its query is stuck on the lock. */
  const abandon = async (method: string, path: string, body?: unknown, table = 'memories') => {
    const req = http.request({ port, host: '127.0.0.1', method, path, agent: false, headers: { ...bearer(acct.key), 'content-type': 'application/json' } });
    req.on('error', () => undefined);
    req.end(body === undefined ? undefined : JSON.stringify(body));
    await waitFor(async () => (await stuck(table)) === 1, 10_000);
    req.destroy();
  };

  const serverHealthy = async () => {
    expect((await t.request().get('/v1/health')).status).toBe(200);
    expect((await t.request().get('/v1/memories?limit=1').set(bearer(acct.key))).status).toBe(200);
  };

  it('cancels the running list query when its client disconnects, and serves on', async () => {
    await serve({ REQUEST_TIMEOUT_MS: '0' });
    await holdMemoriesLock();
    await abandon('GET', '/v1/memories?limit=5');
    // Still locked: only a cancel ends the query.
    await waitFor(async () => (await stuck()) === 0, 10_000);
    await lock!.rollback();
    lock = undefined;
    await serverHealthy();
  });

  it('cancels the running semantic search (a vector scan inside a transaction) when its client disconnects, and serves on', async () => {
    await serve({ REQUEST_TIMEOUT_MS: '0' });
    await holdMemoriesLock();
    await abandon('POST', '/v1/memories/search', { query: 'kafka', search_mode: 'semantic' });
    await waitFor(async () => (await stuck()) === 0, 10_000);
    await lock!.rollback();
    lock = undefined;
    await serverHealthy();
  });

  // Routes that pass no request-bound db along: their queries stop all the same (whileReading).
  it.each([
    ['agents', 'GET', '/v1/agents'],
    ['entities', 'GET', '/v1/entities'],
    ['sessions', 'GET', '/v1/sessions'],
    ['memories', 'GET', '/v1/export'],
  ])('cancels the running query on %s of %s %s when its client disconnects', async (table, method, path) => {
    await serve({ REQUEST_TIMEOUT_MS: '0' });
    await holdMemoriesLock(table);
    await abandon(method, path, undefined, table);
    await waitFor(async () => (await stuck(table)) === 0, 10_000);
    await lock!.rollback();
    lock = undefined;
    await serverHealthy();
  });

  it('answers a read past its deadline with 503 and Retry-After, and cancels its query', async () => {
    await serve({ REQUEST_TIMEOUT_MS: '1000' });
    await holdMemoriesLock();
    // A list: a search has its own, shorter deadline (below).
    const res = await t.request().get('/v1/memories?limit=5').set(bearer(acct.key));
    expect(expectError(res, 503, 'service_unavailable').message).toMatch(/did not complete within 1000 ms/);
    expect(res.headers['retry-after']).toBe('1');
    await waitFor(async () => (await stuck()) === 0, 10_000);
    await lock!.rollback();
    lock = undefined;
    await serverHealthy();
  });

  it('answers a search past SEARCH_TIMEOUT_MS with 503 and Retry-After, well before the request deadline, and cancels its statement', async () => {
    await serve({ REQUEST_TIMEOUT_MS: '20000', SEARCH_TIMEOUT_MS: '800' });
    await holdMemoriesLock();
    const started = Date.now();
    const res = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'kafka', search_mode: 'hybrid' });
    expect(expectError(res, 503, 'service_unavailable').message).toMatch(/^The search did not complete within 800 ms \(SEARCH_TIMEOUT_MS\)/);
    expect(res.headers['retry-after']).toBe('1');
    expect(Date.now() - started).toBeLessThan(10_000);
    await waitFor(async () => (await stuck()) === 0, 10_000);
    await lock!.rollback();
    lock = undefined;
    await serverHealthy();
  });

  it('cancels a decision check past its deadline too', async () => {
    await serve({ REQUEST_TIMEOUT_MS: '1000' });
    await holdMemoriesLock('decisions');
    const res = await t.request().post('/v1/decisions/check').set(bearer(acct.key)).send({ query: 'use kafka for events' });
    expectError(res, 503, 'service_unavailable');
    await waitFor(async () => (await stuck('decisions')) === 0, 10_000);
  });

  it('cancels any POST whose route needs only read scope past its deadline (an impact analysis)', async () => {
    await serve({ REQUEST_TIMEOUT_MS: '1000' });
    await holdMemoriesLock('projects');
    const res = await t.request().post('/v1/projects/impact-analysis').set(bearer(acct.key)).send({ project: 'api', change_description: 'switch to kafka' });
    expectError(res, 503, 'service_unavailable');
    await waitFor(async () => (await stuck('projects')) === 0, 10_000);
  });

  it('never abandons a write: past its deadline it is answered 503, yet it completes once the lock is gone', async () => {
    await serve({ REQUEST_TIMEOUT_MS: '1000' });
    await holdMemoriesLock();
    const res = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'written behind a lock', agent_id: 'writer' });
    expectError(res, 503, 'service_unavailable');
    expect(await stuck()).toBe(1);
    await lock!.rollback();
    lock = undefined;
    await waitFor(async () => {
      const list = await t.request().get('/v1/memories').set(bearer(acct.key));
      return list.body.data.some((m: { content: string }) => m.content === 'written behind a lock');
    }, 10_000);
  });
});
