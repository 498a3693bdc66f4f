import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startRedis, startService, stopProcess, waitFor } from '@ams/testing';
import { createAccount, createTestApp, TestAccount, TestApp } from '@ams/testing';

const API = 'services/api/src/server.ts';

/**
 * The fault suite for the API process itself: the real entry point as child
 * processes, SIGKILLed during writes (split mode on PostgreSQL, and the embedded server on PGlite),
 * and two of them sharing one rate limit through Redis.
 */
describe('API processes under faults', () => {
  let redis: ChildProcess | undefined;
  let redisUrl: string;
  let t: TestApp;
  let acct: TestAccount;
  const apis = new Set<ChildProcess>();

  const startApi = async (env: Record<string, string | undefined> = {}) => {
    const port = await freePort();
    const child = startService(API, {
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: redisUrl,
      EMBEDDING_PROVIDER: 'lexical',
      BOOTSTRAP_ADMIN_KEY: 'false',
      ...env,
    });
    apis.add(child);
    child.once('exit', () => apis.delete(child));
    const base = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${base}/v1/health`).catch(() => undefined))?.status === 200, 60_000, 'API listening');
    return { child, base };
  };
  const call = (base: string, method: string, route: string, body?: unknown, key = acct.key) =>
    fetch(`${base}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

  /**
   * Eight writers against an API SIGKILLed twice once enough writes were acknowledged, then a fresh
   * start: every acknowledged memory must be readable. `running`: an API already started, for round one.
   */
  const writesSurviveKills = async (start: () => Promise<{ child: ChildProcess; base: string }>, key: string, running?: { child: ChildProcess; base: string }) => {
    const acknowledged: string[] = [];
    for (let round = 0; round < 2; round++) {
      // The first round may take an API already started (the embedded case registers on it).
      const { child, base } = round === 0 && running ? running : await start();
      let stop = false;
      // Eight writers in a loop; the kill lands while several writes are in flight.
      const writers = Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; !stop; i++) {
          const res = await call(base, 'POST', '/v1/memories', { content: `round ${round} writer ${w} item ${i}`, agent_id: 'kill-test' }, key).catch(() => undefined);
          if (!res) return; // the connection died with the process: not acknowledged
          if (res.status === 201) acknowledged.push(((await res.json()) as { id: string }).id);
        }
      });
      await waitFor(() => acknowledged.length >= (round + 1) * 20, 30_000, 'writes acknowledged');
      expect(await stopProcess(child, 'SIGKILL')).toBeNull();
      stop = true;
      await Promise.all(writers);
    }

    const { base } = await start();
    const missing: string[] = [];
    for (const id of acknowledged) if ((await call(base, 'GET', `/v1/memories/${id}`, undefined, key)).status !== 200) missing.push(id);
    expect({ acknowledged: acknowledged.length >= 40, missing }).toEqual({ acknowledged: true, missing: [] });
  };

  beforeAll(async () => {
    const port = await freePort();
    redisUrl = `redis://127.0.0.1:${port}`;
    redis = await startRedis(port);
    t = await createTestApp({ REDIS_URL: redisUrl });
    acct = await createAccount(t.ctx);
  });
  afterAll(async () => {
    await Promise.all([...apis].map((a) => stopProcess(a, 'SIGKILL')));
    await t.close();
    await stopProcess(redis, 'SIGKILL');
  });

  it('loses no acknowledged write when the API is SIGKILLed in the middle of them', async () => {
    const prefix = `kill-${crypto.randomBytes(3).toString('hex')}`;
    await writesSurviveKills(() => startApi({ REDIS_KEY_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: '100000' }), acct.key);
  }, 240_000); // three API start-ups (each ~2-15 s on a busy machine) and the writes

  it('loses no acknowledged write when the embedded server (PGlite on disk) is SIGKILLed in the middle of them', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-kill-'));
    const start = () =>
      startApi({ DATABASE_URL: undefined, REDIS_URL: undefined, DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '100000' });
    try {
      const first = await start();
      const reg = await fetch(`${first.base}/v1/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `kill-${crypto.randomBytes(3).toString('hex')}@example.com`, password: 'password-123' }),
      });
      expect(reg.status).toBe(201);
      const { api_key: key } = (await reg.json()) as { api_key: string };
      await writesSurviveKills(start, key, first);
    } finally {
      await Promise.all([...apis].map((a) => stopProcess(a, 'SIGKILL')));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);

  /**
   * Eight clients each reusing one connection, request after request, then SIGTERM: exit 0 in time,
   * every answer a 201 or (the load shed on a busy machine) a 503 with Retry-After.
   */
  const drainsUnderKeepAlive = async ({ child, base }: { child: ChildProcess; base: string }, key: string) => {
    const statuses: Array<number | string> = [];
    let stop = false;
    // Eight clients each reusing one connection (fetch keeps it alive), request after request.
    const clients = Array.from({ length: 8 }, async (_, c) => {
      for (let i = 0; !stop; i++) {
        const res = await call(base, 'POST', '/v1/memories', { content: `client ${c} item ${i}`, agent_id: 'term-test' }, key).catch(() => undefined);
        if (!res) return; // the server closed the connection: refused, not answered
        statuses.push(res.status === 503 && !res.headers.get('retry-after') ? '503 without Retry-After' : res.status);
        await res.arrayBuffer();
      }
    });
    await waitFor(() => statuses.filter((s) => s === 201).length >= 20, 30_000, 'writes acknowledged');
    const begin = Date.now();
    const code = await stopProcess(child, 'SIGTERM');
    const took = Date.now() - begin;
    stop = true;
    await Promise.all(clients);
    expect({ code, drainedInTime: took < 5_000 }).toEqual({ code: 0, drainedInTime: true });
    expect(statuses.filter((s) => s !== 201 && s !== 503)).toEqual([]);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(20);
  };

  it('SIGTERM under keep-alive load: the requests in flight are answered and the process exits 0 well within the grace period', async () => {
    await drainsUnderKeepAlive(await startApi({ REDIS_KEY_PREFIX: `term-${crypto.randomBytes(3).toString('hex')}`, RATE_LIMIT_PER_MINUTE: '100000' }), acct.key);
  }, 120_000);

  it('the same for the embedded server (PGlite on disk)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-term-'));
    try {
      const api = await startApi({ DATABASE_URL: undefined, REDIS_URL: undefined, DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '100000' });
      const reg = await fetch(`${api.base}/v1/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `term-${crypto.randomBytes(3).toString('hex')}@example.com`, password: 'password-123' }),
      });
      expect(reg.status).toBe(201);
      await drainsUnderKeepAlive(api, ((await reg.json()) as { api_key: string }).api_key);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('an import SIGKILLed midway: what its job says was stored is exactly what is stored, and sending the file again finishes it', async () => {
    const owner = await createAccount(t.ctx);
    const env = { REDIS_KEY_PREFIX: `imp-${crypto.randomBytes(3).toString('hex')}`, RATE_LIMIT_PER_MINUTE: '100000', IMPORT_STALE_AFTER_MS: '2000' };
    const total = 3_000;
    const ndjson =
      Array.from({ length: total }, (_, i) =>
        JSON.stringify({ type: 'memory', id: crypto.randomUUID(), agent: 'importer', content: `imported memory ${i} about deploys and databases` }),
      ).join('\n') + '\n';
    const upload = (base: string) =>
      fetch(`${base}/v1/import`, { method: 'POST', headers: { authorization: `Bearer ${owner.key}`, 'content-type': 'application/x-ndjson' }, body: ndjson });
    type Job = { id: string; status: string; lines: number; records: { read: number; stored: number; skipped: number; failed: number } };
    const job = async (base: string, id: string) => (await (await call(base, 'GET', `/v1/import/jobs/${id}`, undefined, owner.key)).json()) as Job;
    const stored = async () => Number((await t.ctx.db.knex('memories').where({ account_id: owner.accountId }).count({ n: '*' }).first())!.n);

    const first = await startApi(env);
    const accepted = await upload(first.base);
    expect(accepted.status).toBe(202);
    const { id } = (await accepted.json()) as Job;
    await waitFor(async () => (await job(first.base, id)).records.stored >= 400, 60_000, 'some batches committed');
    expect(await stopProcess(first.child, 'SIGKILL')).toBeNull();

    // Straight after the kill, and again once the job reads failed: its counts are the rows.
    const [row] = await t.ctx.db.knex('import_jobs').where({ account_id: owner.accountId, id });
    expect(row.records_stored).toBeLessThan(total);
    expect(await stored()).toBe(row.records_stored);
    const second = await startApi(env);
    // Nobody reads the job: the restarted API's sweep fails it once its heartbeat is stale.
    await waitFor(async () => (await t.ctx.db.knex('import_jobs').where({ id }).first()).status === 'failed', 30_000, 'the sweep fails the job');
    let failed: Job | undefined;
    await waitFor(async () => (failed = await job(second.base, id)).status === 'failed', 30_000, 'the job reads failed');
    expect(failed!.records).toEqual({ read: row.records_read, stored: row.records_stored, skipped: 0, failed: 0 });
    expect(failed!.lines).toBe(row.lines);
    expect(await stored()).toBe(failed!.records.stored);

    // The same file again: what was stored is skipped, the rest stored, nothing twice.
    const again = (await (await upload(second.base)).json()) as Job;
    let done: Job | undefined;
    await waitFor(async () => (done = await job(second.base, again.id)).status !== 'running', 120_000, 'the second import ends');
    expect(done).toMatchObject({ status: 'completed', lines: total, records: { read: total, stored: total - failed!.records.stored, skipped: failed!.records.stored, failed: 0 } });
    expect(await stored()).toBe(total);
  }, 300_000);

  it('two API processes share one rate limit through Redis', async () => {
    const env = { REDIS_KEY_PREFIX: `rl2-${crypto.randomBytes(3).toString('hex')}`, RATE_LIMIT_PER_MINUTE: '20' };
    const [a, b] = [await startApi(env), await startApi(env)];
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      statuses.push((await call(a.base, 'GET', '/v1/api-keys')).status);
      statuses.push((await call(b.base, 'GET', '/v1/api-keys')).status);
    }
    // 20 accepted across both, not 20 each.
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
  }, 120_000);
});
