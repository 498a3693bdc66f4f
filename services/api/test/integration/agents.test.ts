import { searchEventsRepository } from '@ams/db';
import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

describe('agents', () => {
  let t: TestApp;
  let acct: TestAccount;
  const create = (body: object, key = acct.key) => t.request().post('/v1/agents').set(bearer(key)).send(body);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('creates an agent: 201 with every field of the spec', async () => {
    const res = await create({ name: 'researcher', description: 'Finds papers', metadata: { team: 'ml' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'agent',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'researcher',
      description: 'Finds papers',
      config: {},
      metadata: { team: 'ml' },
      memory_count: 0,
      session_count: 0,
      project_count: 0,
      last_active_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
    });
    const minimal = await create({ name: 'minimal' });
    expect(minimal.body).toMatchObject({ description: null, metadata: {} });
  });

  it('answers 409 for a name the account already uses', async () => {
    await create({ name: 'twin' });
    expectError(await create({ name: 'twin' }), 409, 'conflict');
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'n'.repeat(256) }, 'name'],
    [{ name: 'ok', description: 'd'.repeat(1_001) }, 'description'],
    [{ name: 'ok', metadata: { blob: 'x'.repeat(10_231) } }, 'metadata'],
    [{ name: 'ok', metadata: [1] }, 'metadata'],
  ])('rejects %j with 422 on %s', async (body, field) => {
    expect(expectError(await create(body), 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
  });

  it('accepts the last valid lengths', async () => {
    const res = await create({ name: 'n'.repeat(255), description: 'd'.repeat(1_000), metadata: { blob: 'x'.repeat(10_240 - '{"blob":""}'.length) } });
    expect(res.status).toBe(201);
  });

  it('lists with counts, gets, and merges metadata on PATCH', async () => {
    const agent = await create({ name: 'counter', metadata: { a: 1, b: 1 } });
    for (const content of ['one', 'two']) {
      await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: agent.body.id, content });
    }
    const got = await t.request().get(`/v1/agents/${agent.body.id}`).set(bearer(acct.key));
    expect(got.body.memory_count).toBe(2);
    const list = await t.request().get('/v1/agents?limit=100').set(bearer(acct.key));
    expect(list.body).toMatchObject({ object: 'list', has_more: false });
    expect(list.body.data.find((a: { id: string }) => a.id === agent.body.id).memory_count).toBe(2);
    const patched = await t.request().patch(`/v1/agents/${agent.body.id}`).set(bearer(acct.key)).send({ description: 'counts', metadata: { b: 2, c: 3 } });
    expect(patched.body).toMatchObject({ name: 'counter', description: 'counts', metadata: { a: 1, b: 2, c: 3 } });
  });

  it('deletes softly, taking its memories with it', async () => {
    const agent = await create({ name: 'doomed' });
    const memory = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: agent.body.id, content: 'doomed memory' });
    expect((await t.request().delete(`/v1/agents/${agent.body.id}`).set(bearer(acct.key))).status).toBe(204);
    expectError(await t.request().get(`/v1/agents/${agent.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    expectError(await t.request().get(`/v1/memories/${memory.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    const row = await t.ctx.db.knex('memories').where({ id: memory.body.id }).first();
    expect(row.deleted_at).not.toBeNull();
    // The name is free again.
    expect((await create({ name: 'doomed' })).status).toBe(201);
  });

  it('computes stats from real rows, searches included', async () => {
    const agent = await create({ name: 'stats' });
    const post = (body: object) => t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: agent.body.id, ...body });
    await post({ content: 'hot one', importance: 0.9 });
    await post({ content: 'warm one', importance: 0.5 });
    await post({ content: 'Microsoft opened an office in Berlin', importance: 0.1, auto_extract_entities: true });
    const old = await post({ content: 'an old memory', importance: 0.5 });
    await t.ctx.db.knex('memories').where({ id: old.body.id }).update({ created_at: new Date(Date.now() - 20 * 86400_000) });
    await t.ctx.db.knex('sessions').insert({ account_id: acct.accountId, agent_id: agent.body.id, status: 'active' });
    await t.ctx.db.knex('sessions').insert({ account_id: acct.accountId, agent_id: agent.body.id, status: 'ended' });
    await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'hot one', agent_id: agent.body.id });
    await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'hot one', agent_id: agent.body.id });
    await searchEventsRepository.recordMany(t.ctx.db.knex, [{ accountId: acct.accountId, agentId: agent.body.id, query: 'rare query', searchMode: 'keyword', resultCount: 0, avgScore: null, responseMs: 10 }]);

    const res = await t.request().get(`/v1/agents/${agent.body.id}/stats`).set(bearer(acct.key));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'agent_stats',
      agent_id: agent.body.id,
      total_memories: 4,
      memories_this_week: 3,
      memories_this_month: 4,
      active_sessions: 1,
      tier_breakdown: { hot: 1, warm: 2, cold: 1 },
      recall_activity: { total_searches: 3 },
      search_analytics: { top_queries: ['hot one', 'rare query'] },
    });
    expect(res.body.entity_count).toBeGreaterThanOrEqual(2);
    expect(res.body.recall_activity.avg_results).toBeGreaterThan(0);
    expect(res.body.recall_activity.avg_score).toBeGreaterThan(0);
    expect(res.body.search_analytics.avg_response_ms).toBeGreaterThan(0);
    expect(res.body.last_active).toMatch(/Z$/);
  });

  it('answers 404 for unknown, malformed and foreign ids, and checks scopes', async () => {
    const other = await createAccount(t.ctx);
    const theirs = await create({ name: 'theirs' }, other.key);
    for (const id of [theirs.body.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
      expectError(await t.request().get(`/v1/agents/${id}`).set(bearer(acct.key)), 404, 'not_found');
      expectError(await t.request().get(`/v1/agents/${id}/stats`).set(bearer(acct.key)), 404, 'not_found');
    }
    const list = await t.request().get('/v1/agents?limit=100').set(bearer(acct.key));
    expect(list.body.data.map((a: { id: string }) => a.id)).not.toContain(theirs.body.id);
    expect(expectError(await create({ name: 'x' }, await acct.keyWith(['read'])), 403, 'authorization_error').message).toBe('Insufficient scope. Required: write');
    const del = await t.request().delete(`/v1/agents/${theirs.body.id}`).set(bearer(await acct.keyWith(['read', 'write'])));
    expect(expectError(del, 403, 'authorization_error').message).toBe('Insufficient scope. Required: delete');
  });

  it('creates one agent when ten writes race on a new name', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'racer', content: `race ${i}` })),
    );
    expect(new Set(results.map((r) => r.body.agent_id)).size).toBe(1);
    const rows = await t.ctx.db.knex('agents').where({ account_id: acct.accountId, name: 'racer' });
    expect(rows).toHaveLength(1);
  });

  it('confines a key bound to an agent to that agent', async () => {
    const mine = await create({ name: 'bound' });
    const other = await create({ name: 'unbound' });
    const key = await acct.keyWith(['read', 'write'], { agentId: mine.body.id });
    const written = await t.request().post('/v1/memories').set(bearer(key)).send({ content: 'bound write' });
    expect(written.body.agent_id).toBe(mine.body.id);
    expectError(await t.request().post('/v1/memories').set(bearer(key)).send({ content: 'x', agent_id: other.body.id }), 403, 'authorization_error');
    const foreign = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'not yours', agent_id: other.body.id });
    expectError(await t.request().get(`/v1/memories/${foreign.body.id}`).set(bearer(key)), 404, 'not_found');
    const list = await t.request().get('/v1/memories').set(bearer(key));
    expect(list.body.data.map((m: { agent_id: string }) => m.agent_id)).toEqual([mine.body.id]);
  });
});
