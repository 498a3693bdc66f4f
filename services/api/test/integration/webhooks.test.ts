import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

describe('webhooks API', () => {
  let t: TestApp;
  let acct: TestAccount;
  const create = (body: object, key = acct.key) => t.request().post('/v1/webhooks').set(bearer(key)).send(body);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('creates a webhook, enabled, all events by default; the secret never comes back', async () => {
    const res = await create({ url: 'https://hooks.example.com/in', secret: 'shh-very-secret', description: 'ops' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: 'https://hooks.example.com/in',
      event_types: [],
      enabled: true,
      disabled_reason: null,
      description: 'ops',
      has_secret: true,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const everywhere = [
      res,
      await t.request().get(`/v1/webhooks/${res.body.id}`).set(bearer(acct.key)),
      await t.request().get('/v1/webhooks').set(bearer(acct.key)),
      await t.request().patch(`/v1/webhooks/${res.body.id}`).set(bearer(acct.key)).send({ secret: 'shh-rotated' }),
    ];
    for (const r of everywhere) expect(JSON.stringify(r.body)).not.toMatch(/shh-/);
  });

  it('redacts query-string values in every response and keeps the full URL for delivery', async () => {
    const full = 'https://hooks.example.com/in?token=tok-secret-123&channel=ops-room-7&token=tok-second';
    const res = await create({ url: full });
    expect(res.status).toBe(201);
    expect(res.body.url).toBe('https://hooks.example.com/in?token=redacted&channel=redacted');
    const patched = await t.request().patch(`/v1/webhooks/${res.body.id}`).set(bearer(acct.key)).send({ url: `${full}&sig=abc-987` });
    expect(patched.body.url).toBe('https://hooks.example.com/in?token=redacted&channel=redacted&sig=redacted');
    const everywhere = [res, patched, await t.request().get(`/v1/webhooks/${res.body.id}`).set(bearer(acct.key)), await t.request().get('/v1/webhooks').set(bearer(acct.key))];
    for (const r of everywhere) expect(JSON.stringify(r.body)).not.toMatch(/tok-secret|tok-second|ops-room|abc-987/);
    const row = await t.ctx.db.knex('webhooks').where({ id: res.body.id }).first();
    expect(row.url).toBe(`${full}&sig=abc-987`);
  });

  it('shows a URL without a query string as it was registered', async () => {
    const res = await create({ url: 'https://hooks.example.com/plain/path' });
    expect(res.body.url).toBe('https://hooks.example.com/plain/path');
  });

  it('lists with data and total only', async () => {
    const res = await t.request().get('/v1/webhooks').set(bearer(acct.key));
    expect(Object.keys(res.body).sort()).toEqual(['data', 'total']);
    expect(res.body.total).toBe(res.body.data.length);
  });

  it.each([
    [{}, 'url'],
    [{ url: 'http://hooks.example.com/in' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ url: `https://h.example.com/${'p'.repeat(2_049 - 'https://h.example.com/'.length)}` }, 'url'],
    [{ url: 'https://h.example.com', event_types: ['memory.exploded'] }, 'event_types.0'],
    [{ url: 'https://h.example.com', secret: 's'.repeat(257) }, 'secret'],
    [{ url: 'https://h.example.com', description: 'd'.repeat(256) }, 'description'],
  ])('rejects %j with 422 on %s', async (body, field) => {
    expect(expectError(await create(body), 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
  });

  it('accepts the bounds: a 2,048-character URL, 256-character secret, 255-character description', async () => {
    const url = `https://h.example.com/${'p'.repeat(2_048 - 'https://h.example.com/'.length)}`;
    expect(url).toHaveLength(2_048);
    expect((await create({ url, secret: 's'.repeat(256), description: 'd'.repeat(255), event_types: ['memory.created', 'embedding.completed'] })).status).toBe(201);
  });

  it('patches (disable and re-enable) and deletes', async () => {
    const w = await create({ url: 'https://h.example.com/a' });
    const off = await t.request().patch(`/v1/webhooks/${w.body.id}`).set(bearer(acct.key)).send({ enabled: false });
    expect(off.body).toMatchObject({ enabled: false, disabled_reason: 'disabled by the user' });
    const on = await t.request().patch(`/v1/webhooks/${w.body.id}`).set(bearer(acct.key)).send({ enabled: true, event_types: ['memory.deleted'] });
    expect(on.body).toMatchObject({ enabled: true, disabled_reason: null, event_types: ['memory.deleted'] });
    expectError(await t.request().patch(`/v1/webhooks/${w.body.id}`).set(bearer(acct.key)).send({ url: 'http://x.example.com' }), 422, 'validation_error');
    expect((await t.request().delete(`/v1/webhooks/${w.body.id}`).set(bearer(acct.key))).status).toBe(204);
    expectError(await t.request().get(`/v1/webhooks/${w.body.id}`).set(bearer(acct.key)), 404, 'not_found');
  });

  it('needs admin scope and isolates accounts', async () => {
    expect(expectError(await create({ url: 'https://h.example.com' }, await acct.keyWith(['read', 'write', 'delete'])), 403, 'authorization_error').message).toBe('Insufficient scope. Required: admin');
    const other = await createAccount(t.ctx);
    const theirs = await create({ url: 'https://h.example.com/theirs' }, other.key);
    expectError(await t.request().get(`/v1/webhooks/${theirs.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    expectError(await t.request().get(`/v1/webhooks/${theirs.body.id}/deliveries`).set(bearer(acct.key)), 404, 'not_found');
  });

  describe('events from memory changes', () => {
    let owner: TestAccount;
    const deliveries = () => t.ctx.db.knex('webhook_deliveries').where({ account_id: owner.accountId }).orderBy('created_at');

    beforeAll(async () => {
      owner = await createAccount(t.ctx);
    });

    it('records created, updated and deleted events for matching enabled webhooks, with the payload docs/api.md describes', async () => {
      const all = await create({ url: 'https://h.example.com/all' }, owner.key);
      const onlyDeleted = await create({ url: 'https://h.example.com/del', event_types: ['memory.deleted'] }, owner.key);
      const disabled = await create({ url: 'https://h.example.com/off' }, owner.key);
      await t.request().patch(`/v1/webhooks/${disabled.body.id}`).set(bearer(owner.key)).send({ enabled: false });

      const m = await t.request().post('/v1/memories').set(bearer(owner.key)).send({ agent_id: 'ev', content: 'event source' });
      await t.request().patch(`/v1/memories/${m.body.id}`).set(bearer(owner.key)).send({ content: 'changed', importance: 0.9 });
      await t.request().delete(`/v1/memories/${m.body.id}`).set(bearer(owner.key));

      const rows = await deliveries();
      const by = (webhookId: string) => rows.filter((r) => r.webhook_id === webhookId).map((r) => r.event_type);
      expect(by(all.body.id)).toEqual(['memory.created', 'memory.updated', 'memory.deleted']);
      expect(by(onlyDeleted.body.id)).toEqual(['memory.deleted']);
      expect(by(disabled.body.id)).toEqual([]);
      const created = rows.find((r) => r.event_type === 'memory.created')!.payload;
      expect(created).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        type: 'memory.created',
        created_at: expect.stringMatching(/Z$/),
        data: { memory_id: m.body.id, agent_id: m.body.agent_id, content: 'event source', status: 'ready' },
      });
      const updated = rows.find((r) => r.event_type === 'memory.updated')!.payload;
      expect(updated.data).toMatchObject({ content: 'changed', changes: ['content', 'importance'] });
      const deleted = rows.find((r) => r.event_type === 'memory.deleted' && r.webhook_id === all.body.id)!.payload;
      expect(deleted.data.deleted_at).toMatch(/Z$/);
      // Both receivers of the deletion share one event id.
      const deletionIds = rows.filter((r) => r.event_type === 'memory.deleted').map((r) => r.event_id);
      expect(new Set(deletionIds).size).toBe(1);

      const listed = await t.request().get(`/v1/webhooks/${all.body.id}/deliveries`).set(bearer(owner.key));
      expect(listed.body.total_count).toBe(3);
      expect(listed.body.data[0]).toMatchObject({ event_type: 'memory.deleted', attempts: expect.any(Number) });
    });

    it('retries only a failed delivery', async () => {
      const w = await create({ url: 'https://h.example.com/retry' }, owner.key);
      await t.request().post('/v1/memories').set(bearer(owner.key)).send({ agent_id: 'ev', content: 'to retry' });
      const [d] = await t.ctx.db.knex('webhook_deliveries').where({ webhook_id: w.body.id });
      expectError(await t.request().post(`/v1/webhooks/${w.body.id}/deliveries/${d.id}/retry`).set(bearer(owner.key)), 409, 'conflict');
      await t.ctx.db.knex('webhook_deliveries').where({ id: d.id }).update({ status: 'failed', attempts: 4 });
      const res = await t.request().post(`/v1/webhooks/${w.body.id}/deliveries/${d.id}/retry`).set(bearer(owner.key));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: d.id, status: 'pending', attempts: 0, event_id: d.event_id });
      expectError(await t.request().post(`/v1/webhooks/${w.body.id}/deliveries/00000000-0000-4000-8000-000000000000/retry`).set(bearer(owner.key)), 404, 'not_found');
    });
  });
});
