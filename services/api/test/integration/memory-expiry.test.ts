import { MemoryLifecycleSweep } from '@ams/memories';
import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp, waitFor } from '@ams/testing';

const now = () => Math.floor(Date.now() / 1000);
/** An expiry `seconds` from about now (a loaded machine may take a few seconds per request). */
const expectIn = (expiresAt: number, seconds: number) => expect(Math.abs(expiresAt - (now() + seconds))).toBeLessThanOrEqual(15);

describe('memory expiry', () => {
  let t: TestApp;
  let acct: TestAccount;
  const create = (body: object, key = acct.key) => t.request().post('/v1/memories').set(bearer(key)).send({ agent_id: 'expiring', ...body });
  const patch = (id: string, body: object) => t.request().patch(`/v1/memories/${id}`).set(bearer(acct.key)).send(body);
  const get = (id: string) => t.request().get(`/v1/memories/${id}`).set(bearer(acct.key));
  const list = (query = '') => t.request().get(`/v1/memories?agent_id=expiring&limit=100${query}`).set(bearer(acct.key));
  const search = (body: object) => t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ agent_id: 'expiring', limit: 100, ...body });
  const ids = (res: { body: { data: Array<{ id?: string; memory?: { id: string } }> } }) => res.body.data.map((d) => d.memory?.id ?? d.id);
  const sweeper = (settings: Partial<ConstructorParameters<typeof MemoryLifecycleSweep>[1]> = {}) =>
    new MemoryLifecycleSweep({ db: t.ctx.db.knex, logger: t.ctx.logger }, { sweepIntervalMs: 60_000, historyRetentionDays: 0, historyMaxVersions: 0, ...settings });

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  describe('setting it', () => {
    it('takes ttl_seconds or expires_at (Unix seconds or ISO 8601) and returns expires_at in Unix seconds, as created_at', async () => {
      const byTtl = await create({ content: 'a scratch note', ttl_seconds: 3600 });
      expect(byTtl.status).toBe(201);
      expectIn(byTtl.body.expires_at, 3600);
      const at = now() + 86_400;
      expect((await create({ content: 'until tomorrow', expires_at: at })).body.expires_at).toBe(at);
      const iso = new Date((at + 60) * 1000).toISOString();
      expect((await create({ content: 'until tomorrow, ISO', expires_at: iso })).body.expires_at).toBe(at + 60);
      const plain = await create({ content: 'never expires' });
      expect(plain.body.expires_at).toBeNull();
      expect((await get(byTtl.body.id)).body.expires_at).toBe(byTtl.body.expires_at);
    });

    it('refuses an expires_at in the past, both members at once, and nonsense, with precise messages', async () => {
      const past = expectError(await create({ content: 'too late', expires_at: now() - 10 }), 422, 'validation_error');
      expect(past.details).toEqual([{ field: 'expires_at', message: expect.stringMatching(/^expires_at must be in the future: .* is not after now/) }]);
      const both = expectError(await create({ content: 'both', expires_at: now() + 100, ttl_seconds: 5 }), 422, 'validation_error');
      expect(both.details).toEqual([{ field: '', message: 'Give ttl_seconds or expires_at, not both' }]);
      const junk = expectError(await create({ content: 'junk', expires_at: 'soon' }), 422, 'validation_error');
      expect(junk.details![0]!).toEqual({ field: 'expires_at', message: 'expires_at must be Unix seconds, an ISO 8601 date or "never"' });
      expect(expectError(await create({ content: 'zero', ttl_seconds: 0 }), 422, 'validation_error').details![0]!.field).toBe('ttl_seconds');
      const m = await create({ content: 'patch me' });
      expect(expectError(await patch(m.body.id, { expires_at: now() - 1 }), 422, 'validation_error').details![0]!.field).toBe('expires_at');
    });

    it('is taken by batch items and v2 creates', async () => {
      const at = now() + 7200;
      const batch = await t.request().post('/v1/memories/batch').set(bearer(acct.key)).send({
        agent_id: 'expiring',
        memories: [{ content: 'batch with ttl', ttl_seconds: 60 }, { content: 'batch with expires_at', expires_at: at }, { content: 'batch without' }],
      });
      expect(batch.body.succeeded).toBe(3);
      const [a, b, c] = await Promise.all(batch.body.results.map((r: { memory_id: string }) => get(r.memory_id)));
      expectIn(a!.body.expires_at, 60);
      expect(b!.body.expires_at).toBe(at);
      expect(c!.body.expires_at).toBeNull();
      const v2 = await t.request().post('/v2/memories').set(bearer(acct.key)).send({ agent_id: 'expiring', content: 'async with ttl', ttl_seconds: 120 });
      expect(v2.status).toBe(202);
      expectIn((await get(v2.body.id)).body.expires_at, 120);
      const badItem = expectError(await t.request().post('/v1/memories/batch').set(bearer(acct.key)).send({ memories: [{ content: 'x', expires_at: 5 }] }), 422, 'validation_error');
      expect(badItem.details![0]!.field).toBe('memories.0.expires_at');
    });

    it('applies the agent’s default TTL per memory type (or its `default`), unless the create names one or "never"', async () => {
      const agent = await t.request().post('/v1/agents').set(bearer(acct.key)).send({ name: 'scratchpad', config: { default_ttl_seconds: { task: 600 } } });
      expect(agent.status).toBe(201);
      expect(agent.body.config).toEqual({ default_ttl_seconds: { task: 600 } });
      const task = await create({ agent_id: 'scratchpad', content: 'check the build', memory_type: 'task' });
      expectIn(task.body.expires_at, 600);
      expect((await create({ agent_id: 'scratchpad', content: 'Paris is in France', memory_type: 'fact' })).body.expires_at).toBeNull();
      expect((await create({ agent_id: 'scratchpad', content: 'keep this task', memory_type: 'task', expires_at: 'never' })).body.expires_at).toBeNull();
      expect((await create({ agent_id: 'scratchpad', content: 'short task', memory_type: 'task', ttl_seconds: 30 })).body.expires_at).toBeLessThanOrEqual(now() + 31);
      const patched = await t.request().patch(`/v1/agents/${agent.body.id}`).set(bearer(acct.key)).send({ config: { default_ttl_seconds: { default: 60 } } });
      expect(patched.body.config).toEqual({ default_ttl_seconds: { default: 60 } });
      expectIn((await create({ agent_id: 'scratchpad', content: 'anything', memory_type: 'fact' })).body.expires_at, 60);
      const bad = expectError(await t.request().patch(`/v1/agents/${agent.body.id}`).set(bearer(acct.key)).send({ config: { default_ttl_seconds: { scratch: 60 } } }), 422, 'validation_error');
      expect(bad.details![0]!).toEqual({ field: 'config.default_ttl_seconds', message: expect.stringMatching(/^config\.default_ttl_seconds\.scratch is not a memory type/) });
    });
  });

  describe('once it has passed', () => {
    it('leaves search (every mode), lists and context at once, before any sweep; include_expired shows it for audits', async () => {
      const keep = await create({ content: 'the quokka lives on Rottnest island' });
      const gone = await create({ content: 'the quokka photo session is at noon', ttl_seconds: 1 });
      // The clock passes the expiry (no sweep runs in this app).
      await waitFor(async () => !ids(await list()).includes(gone.body.id), 5_000);
      for (const search_mode of ['semantic', 'keyword', 'hybrid']) {
        const found = ids(await search({ query: 'quokka', search_mode }));
        expect(found).toContain(keep.body.id);
        expect(found).not.toContain(gone.body.id);
      }
      const ctx = await t.request().post('/v2/context/build').set(bearer(acct.key)).send({ agent_id: 'expiring', query: 'quokka photo session', threshold: 0 });
      expect(ctx.body.context).not.toContain('photo session');
      expect(ids(await list('&include_expired=true'))).toContain(gone.body.id);
      expect(ids(await search({ query: 'quokka', search_mode: 'keyword', include_expired: true }))).toContain(gone.body.id);
      // Read by id, it is still there (with its past expires_at) until the sweep.
      expect((await get(gone.body.id)).body.expires_at).toBeLessThanOrEqual(now());
    });

    it('is soft-deleted by the sweep with memory.expired and an `expire` version; one renewed before the sweep stays', async () => {
      await t.request().post('/v1/webhooks').set(bearer(acct.key)).send({ url: 'https://h.example.com/expiry', event_types: ['memory.expired'] });
      const doomed = await create({ content: 'expires for real', ttl_seconds: 1 });
      const renewed = await create({ content: 'renewed in time', ttl_seconds: 1 });
      const renewal = await patch(renewed.body.id, { ttl_seconds: 3600 });
      expect(renewal.status).toBe(200);
      expect(renewal.body.expires_at).toBeGreaterThan(now() + 3000);
      await waitFor(async () => !ids(await list()).includes(doomed.body.id), 5_000);
      const { expired } = await sweeper().sweep();
      expect(expired).toBeGreaterThanOrEqual(1);
      expectError(await get(doomed.body.id), 404, 'not_found');
      expect((await get(renewed.body.id)).status).toBe(200);
      const history = await t.request().get(`/v1/memories/${doomed.body.id}/history`).set(bearer(acct.key));
      expect(history.body.data[0]).toMatchObject({ version: 2, change: 'expire', changed_fields: [], actor: { type: 'system', key_id: null } });
      const [event] = await t.ctx.db.knex('webhook_deliveries').where({ account_id: acct.accountId, event_type: 'memory.expired' }).whereRaw(`payload -> 'data' ->> 'memory_id' = ?`, [doomed.body.id]);
      expect(event.payload).toMatchObject({ type: 'memory.expired', data: { memory_id: doomed.body.id, content: 'expires for real', version: 2, expires_at: expect.stringMatching(/Z$/) } });
      // Restoring it brings it back without the past expiry.
      const back = await t.request().post(`/v1/memories/${doomed.body.id}/restore`).set(bearer(acct.key));
      expect(back.body.expires_at).toBeNull();
      expect(ids(await list())).toContain(doomed.body.id);
    });

    it('restore before the sweep clears the past expiry too: the memory is back in lists and search, and stays', async () => {
      const lapsed = await create({ content: 'the heron nests by the weir', ttl_seconds: 1 });
      await waitFor(async () => !ids(await list()).includes(lapsed.body.id), 5_000);
      const back = await t.request().post(`/v1/memories/${lapsed.body.id}/restore`).set(bearer(acct.key));
      expect(back.status).toBe(200);
      expect(back.body.expires_at).toBeNull();
      expect(ids(await list())).toContain(lapsed.body.id);
      expect(ids(await search({ query: 'heron nests', search_mode: 'keyword' }))).toContain(lapsed.body.id);
      await sweeper().sweep();
      expect((await get(lapsed.body.id)).status).toBe(200);
      const [restored] = (await t.request().get(`/v1/memories/${lapsed.body.id}/history`).set(bearer(acct.key))).body.data;
      expect(restored).toMatchObject({ change: 'restore', changed_fields: ['expires_at'], after: { expires_at: null } });
      // A live memory whose expiry is still ahead is left as it is.
      const later = await create({ content: 'still has an hour', ttl_seconds: 3600 });
      const untouched = await t.request().post(`/v1/memories/${later.body.id}/restore`).set(bearer(acct.key));
      expect(untouched.body).toMatchObject({ version: 1, expires_at: later.body.expires_at });
    });

    it('PATCH expires_at "never" ends an expiry', async () => {
      const m = await create({ content: 'was temporary', ttl_seconds: 60 });
      expect((await patch(m.body.id, { expires_at: 'never' })).body.expires_at).toBeNull();
    });
  });

  it('lists what expires soon with expires_before', async () => {
    const soon = await create({ content: 'expires in a minute', ttl_seconds: 60 });
    const later = await create({ content: 'expires in a week', ttl_seconds: 7 * 86_400 });
    const found = ids(await list(`&expires_before=${now() + 3600}`));
    expect(found).toContain(soon.body.id);
    expect(found).not.toContain(later.body.id);
  });

  it('prunes history beyond MEMORY_HISTORY_MAX_VERSIONS, never the current version', async () => {
    const m = await create({ content: 'v1' });
    for (let i = 2; i <= 5; i++) await patch(m.body.id, { content: `v${i}` });
    await sweeper({ historyMaxVersions: 2 }).sweep();
    const versions = (await t.request().get(`/v1/memories/${m.body.id}/history`).set(bearer(acct.key))).body.data.map((v: { version: number }) => v.version);
    expect(versions).toEqual([5, 4]);
    const fresh = await create({ content: 'only one version' });
    await sweeper({ historyRetentionDays: 1 }).sweep();
    expect((await t.request().get(`/v1/memories/${fresh.body.id}/history`).set(bearer(acct.key))).body.total_count).toBe(1);
  });
});
