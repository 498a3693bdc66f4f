import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bearer, createAccount, createTestApp, expectError, operatorKey, freePort, startHttpsReceiver, startService, stopProcess, TestAccount, TestApp, waitFor } from '@ams/testing';

/** The value of one sample in Prometheus text (0 when absent); `labels` as written, e.g. `method="GET",route="/v1/x"`. */
const sample = (text: string, name: string, labels?: string) => {
  const escaped = (labels ? `${name}{${labels}}` : name).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return Number(new RegExp(`^${escaped} ([\\d.e+-]+)$`, 'm').exec(text)?.[1] ?? 0);
};

describe('API metrics', () => {
  let t: TestApp;
  let acct: TestAccount;
  let operator: string;
  const scrape = async () => (await t.request().get('/metrics').set(bearer(operator)).expect(200)).text;

  beforeAll(async () => {
    t = await createTestApp();
    // The operator first: on a fresh store the oldest account is the operator's.
    operator = await operatorKey(t.ctx);
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('counts requests by route pattern and status, never by the raw URL', async () => {
    const created = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'metrics', content: 'prometheus scrapes every fifteen seconds' }).expect(201);
    const id = created.body.id as string;
    const before = await scrape();
    await t.request().get(`/v1/memories/${id}`).set(bearer(acct.key)).expect(200);
    await t.request().get(`/v1/memories/${id}`).set(bearer(acct.key)).expect(200);
    await t.request().get('/v1/memories/00000000-0000-4000-8000-000000000000').set(bearer(acct.key)).expect(404);
    await t.request().get('/v1/no-such-route').set(bearer(acct.key)).expect(404);
    const after = await scrape();

    const ok = 'method="GET",route="/v1/memories/:id",status="200"';
    expect(sample(after, 'ams_http_requests_total', ok) - sample(before, 'ams_http_requests_total', ok)).toBe(2);
    const missing = 'method="GET",route="/v1/memories/:id",status="404"';
    expect(sample(after, 'ams_http_requests_total', missing) - sample(before, 'ams_http_requests_total', missing)).toBe(1);
    const unmatched = 'method="GET",route="(unmatched)",status="404"';
    expect(sample(after, 'ams_http_requests_total', unmatched) - sample(before, 'ams_http_requests_total', unmatched)).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'ams_http_request_duration_seconds_count', ok) - sample(before, 'ams_http_request_duration_seconds_count', ok)).toBe(2);
    // No label carries an id or a URL nobody routes.
    expect(after).not.toContain(id);
    expect(after).not.toContain('no-such-route');
  });

  it('times searches by mode, the context build’s search included', async () => {
    const before = await scrape();
    for (const search_mode of ['semantic', 'keyword', 'hybrid']) {
      await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'prometheus', search_mode }).expect(200);
    }
    await t.request().post('/v2/context/build').set(bearer(acct.key)).send({ query: 'prometheus', agent_id: 'metrics' }).expect(200);
    const after = await scrape();
    const count = (text: string, mode: string) => sample(text, 'ams_search_duration_seconds_count', `mode="${mode}"`);
    expect(count(after, 'semantic') - count(before, 'semantic')).toBe(2);
    expect(count(after, 'keyword') - count(before, 'keyword')).toBe(1);
    expect(count(after, 'hybrid') - count(before, 'hybrid')).toBe(1);
  });

  it('reports the embedding queue from the database at scrape time', async () => {
    const text = await scrape();
    expect(text).toMatch(/^ams_embedding_queue_depth\{status="pending"\} \d+$/m);
    expect(text).toMatch(/^ams_embedding_queue_depth\{status="processing"\} \d+$/m);
    expect(text).toMatch(/^ams_embedding_queue_oldest_pending_age_seconds [\d.e+-]+$/m);
  });

  it("serves /metrics on the public port only to the operator's admin key, with the error envelope otherwise", async () => {
    expectError(await t.request().get('/metrics'), 401, 'unauthorized');
    expectError(await t.request().get('/metrics').set(bearer('ams_not_a_real_key')), 401, 'unauthorized');
    expectError(await t.request().get('/metrics').set(bearer(await acct.keyWith(['read', 'write']))), 403, 'authorization_error');
    // Another tenant's admin key, a self-registered one included: the counts are every tenant's.
    const tenant = expectError(await t.request().get('/metrics').set(bearer(acct.key)), 403, 'authorization_error');
    expect(tenant.message).toContain("only the operator's account");
    const registered = await t.request().post('/v1/auth/register').send({ email: `metrics-${Date.now()}@example.com`, password: 'correct horse battery' }).expect(201);
    expectError(await t.request().get('/metrics').set(bearer(registered.body.api_key)), 403, 'authorization_error');
    const res = await t.request().get('/metrics').set(bearer(operator)).expect(200);
    expect(res.text).toContain('ams_http_requests_total');
  });
});

/** The API entry point as its own process, answering health; with METRICS_PORT on a port of its own. */
async function startApi(env: Record<string, string>): Promise<{ child: ChildProcess; base: string; metrics: string }> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const child = startService('services/api/src/server.ts', {
    PORT: String(port),
    HOST: '127.0.0.1',
    METRICS_PORT: String(metricsPort),
    EMBEDDING_PROVIDER: 'lexical',
    BOOTSTRAP_ADMIN_KEY: 'false',
    REDIS_URL: '',
    ...env,
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/v1/health`).catch(() => undefined))?.status === 200, 60_000, 'API listening');
  return { child, base, metrics: `http://127.0.0.1:${metricsPort}/metrics` };
}

describe('API process metrics listener (METRICS_PORT)', () => {
  let child: ChildProcess | undefined;
  afterAll(() => stopProcess(child, 'SIGKILL'));

  it('serves the process’s metrics without a key on its own port, and still wants the admin key on the public one', async () => {
    const api = await startApi({});
    child = api.child;
    const base = api.base;
    await fetch(`${base}/v1/health`);

    const res = await fetch(api.metrics);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(sample(text, 'ams_http_requests_total', 'method="GET",route="/v1/health",status="200"')).toBeGreaterThanOrEqual(2);
    expect(text).toContain('ams_api_process_cpu_seconds_total');
    expect(text).toContain('ams_query_embedding_cache_hits_total');
    expect((await fetch(api.metrics.replace('/metrics', '/other'))).status).toBe(404);

    const open = await fetch(`${base}/metrics`);
    expect(open.status).toBe(401);
    expect(await open.json()).toMatchObject({ type: 'unauthorized', code: 401 });
  }, 120_000);
});

describe('embedded API process (PGlite, no Redis): the in-process dispatcher and worker report to the API metrics', () => {
  let child: ChildProcess | undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-metrics-'));
  afterAll(async () => {
    await stopProcess(child, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('counts a real delivery to a local HTTPS receiver and an embedded batch, beside the outbox and queue gauges', async () => {
    const receiver = await startHttpsReceiver();
    try {
      const caFile = path.join(dir, 'ca.pem');
      fs.writeFileSync(caFile, receiver.ca);
      const api = await startApi({ DATABASE_URL: '', DATA_DIR: path.join(dir, 'data'), WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_CA_FILE: caFile });
      child = api.child;
      const post = async (route: string, body: unknown, key?: string) =>
        fetch(`${api.base}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });
      const { api_key: key } = (await (await post('/v1/auth/register', { email: `metrics-${Date.now()}@example.com`, password: 'correct horse battery' })).json()) as { api_key: string };
      expect((await post('/v1/webhooks', { url: receiver.url, event_types: ['memory.created'] }, key)).status).toBe(201);
      expect((await post('/v1/memories', { agent_id: 'hooked', content: 'a memory whose event is delivered' }, key)).status).toBe(201);
      // v2 hands the embedding to the in-process worker, which counts its batch here too.
      expect((await post('/v2/memories', { agent_id: 'hooked', content: 'a memory the in-process worker embeds' }, key)).status).toBe(202);
      let text = '';
      await waitFor(async () => {
        text = await fetch(api.metrics).then((r) => r.text(), () => '');
        return sample(text, 'ams_webhook_deliveries_total', 'outcome="delivered"') >= 1 && sample(text, 'ams_embedding_memories_total', 'outcome="ready"') >= 1;
      }, 30_000, 'a delivery and an embedding counted');
      expect(sample(text, 'ams_embedding_batch_duration_seconds_count')).toBeGreaterThanOrEqual(1);
      expect(receiver.requests.length).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'ams_webhook_delivery_duration_seconds_count', 'outcome="delivered"')).toBeGreaterThanOrEqual(1);
      expect(text).toMatch(/^ams_webhook_outbox_depth\{status="pending"\} \d+$/m);
      expect(text).toMatch(/^ams_embedding_queue_depth\{status="pending"\} \d+$/m);
    } finally {
      await receiver.close();
    }
  }, 120_000); // PGlite's first start in a fresh process
});
