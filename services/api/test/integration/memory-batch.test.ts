import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

describe('POST /v1/memories/batch', () => {
  let t: TestApp;
  let acct: TestAccount;
  const batch = (body: object) => t.request().post('/v1/memories/batch').set(bearer(acct.key)).send(body);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('stores every item in one go and reports each with measured timing', async () => {
    const res = await batch({ memories: [{ content: 'alpha fact', agent_id: 'batcher' }, { content: 'beta fact', agent_id: 'batcher', metadata: { k: 1 } }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, total: 2, succeeded: 2, failed: 0, skipped: 0 });
    expect(res.body.results).toEqual([
      { index: 0, status: 'success', success: true, memory_id: expect.stringMatching(/^[0-9a-f-]{36}$/), content_preview: 'alpha fact' },
      { index: 1, status: 'success', success: true, memory_id: expect.stringMatching(/^[0-9a-f-]{36}$/), content_preview: 'beta fact' },
    ]);
    for (const k of ['total_ms', 'embedding_ms', 'database_ms', 'per_memory_avg_ms']) expect(res.body.timing[k]).toBeGreaterThanOrEqual(0);
    expect(res.body.timing.total_ms).toBeGreaterThanOrEqual(res.body.timing.database_ms);
    const search = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'beta fact', agent_id: 'batcher' });
    expect(search.body.data[0].memory.id).toBe(res.body.results[1].memory_id);
  });

  it('skips an item whose client_id was used before, or earlier in the same batch', async () => {
    const first = await batch({ memories: [{ content: 'once', agent_id: 'idem', client_id: 'c-1' }] });
    const again = await batch({
      memories: [
        { content: 'once', agent_id: 'idem', client_id: 'c-1' },
        { content: 'twice', agent_id: 'idem', client_id: 'c-2' },
        { content: 'twice again', agent_id: 'idem', client_id: 'c-2' },
      ],
    });
    expect(again.body).toMatchObject({ success: true, succeeded: 1, skipped: 2, failed: 0 });
    expect(again.body.results[0]).toMatchObject({ status: 'skipped', memory_id: first.body.results[0].memory_id });
    expect(again.body.results[2].status).toBe('skipped');
    const stored = await t.ctx.db.knex('memories').where({ account_id: acct.accountId, client_id: 'c-2' });
    expect(stored).toHaveLength(1);
  });

  it('fails items independently: an unknown session fails its item only', async () => {
    const res = await batch({ memories: [{ content: 'fine', agent_id: 'b' }, { content: 'orphan', agent_id: 'b', session_id: '00000000-0000-4000-8000-000000000000' }] });
    expect(res.body).toMatchObject({ success: false, succeeded: 1, failed: 1 });
    expect(res.body.results[1]).toMatchObject({ status: 'failed', memory_id: null, error: 'Session not found' });
  });

  it("falls back to the key's bound agent, else the account's `default` agent", async () => {
    const res = await batch({ memories: [{ content: 'no agent given' }] });
    const row = await t.ctx.db.knex('memories').where({ id: res.body.results[0].memory_id }).first();
    const agent = await t.ctx.db.knex('agents').where({ account_id: acct.accountId, id: row.agent_id }).first();
    expect(agent.name).toBe('default');
  });

  it('computes embeddings one by one when parallel_embeddings is false, with the same result', async () => {
    const res = await batch({ parallel_embeddings: false, memories: [{ content: 'serial one', agent_id: 's' }, { content: 'serial two', agent_id: 's' }] });
    expect(res.body).toMatchObject({ success: true, succeeded: 2 });
  });

  it('accepts 100 items and metadata with 50 keys', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const memories = Array.from({ length: 100 }, (_, i) => ({ content: `bulk item ${i}`, agent_id: 'bulk', metadata }));
    const res = await batch({ memories });
    expect(res.body).toMatchObject({ total: 100, succeeded: 100 });
  });

  it.each([
    [{ memories: [] }, 'memories'],
    [{}, 'memories'],
    [{ memories: Array.from({ length: 101 }, () => ({ content: 'x' })) }, 'memories'],
    [{ memories: [{ content: 'ok' }, { content: '  ' }] }, 'memories.1.content'],
    [{ memories: [{ content: 'x'.repeat(50_001) }] }, 'memories.0.content'],
    [{ memories: [{ content: 'ok', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }] }, 'memories.0.metadata'],
    [{ memories: [{ content: 'ok', metadata: { big: 'x'.repeat(10_240) } }] }, 'memories.0.metadata'],
    [{ memories: [{ content: 'ok' }], parallel_embeddings: 'yes' }, 'parallel_embeddings'],
  ])('rejects the whole request %# with 422 naming %s, storing nothing', async (body, field) => {
    const before = await t.ctx.db.knex('memories').where({ account_id: acct.accountId }).count<{ count: number }[]>('* as count');
    expect(expectError(await batch(body), 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
    const after = await t.ctx.db.knex('memories').where({ account_id: acct.accountId }).count<{ count: number }[]>('* as count');
    expect(after[0]!.count).toBe(before[0]!.count);
  });

  it('records one memory.created event per stored memory for subscribed webhooks', async () => {
    const other = await createAccount(t.ctx);
    await t.ctx.db.knex('webhooks').insert({ account_id: other.accountId, url: 'https://example.com/hook', event_types: ['memory.created'] });
    const res = await t.request().post('/v1/memories/batch').set(bearer(other.key)).send({ memories: [{ content: 'e1' }, { content: 'e2' }, { content: 'e3' }] });
    const deliveries = await t.ctx.db.knex('webhook_deliveries').where({ account_id: other.accountId });
    expect(deliveries).toHaveLength(3);
    const ids = deliveries.map((d) => d.payload.data.memory_id).sort();
    expect(ids).toEqual(res.body.results.map((r: { memory_id: string }) => r.memory_id).sort());
    expect(deliveries[0].payload).toMatchObject({ type: 'memory.created', data: { status: 'ready' } });
  });
});
