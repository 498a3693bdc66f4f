import { bearer, createAccount, createTestApp, TestAccount, TestApp } from '@ams/testing';

describe('an agent writing memories is active', () => {
  let t: TestApp;
  let acct: TestAccount;
  const newAgent = async (name: string) => (await t.request().post('/v1/agents').set(bearer(acct.key)).send({ name })).body as { id: string; last_active_at: string | null };
  const lastActive = async (id: string) => (await t.request().get(`/v1/agents/${id}`).set(bearer(acct.key))).body.last_active_at as string | null;

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('a new agent has not been active', async () => {
    const agent = await newAgent('idle');
    expect(agent.last_active_at).toBeNull();
    expect(await lastActive(agent.id)).toBeNull();
  });

  it('POST /v1/memories sets last_active_at', async () => {
    const agent = await newAgent('v1-writer');
    const res = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'a v1 note', agent_id: agent.id });
    expect(res.status).toBe(201);
    const at = await lastActive(agent.id);
    expect(at).toMatch(/Z$/);
    expect(Date.parse(at!)).toBeGreaterThanOrEqual(Date.parse((await t.request().get(`/v1/agents/${agent.id}`).set(bearer(acct.key))).body.created_at));
  });

  it('POST /v1/memories/batch sets it for every agent written to', async () => {
    const a = await newAgent('batch-a');
    const b = await newAgent('batch-b');
    const res = await t.request().post('/v1/memories/batch').set(bearer(acct.key)).send({ memories: [{ content: 'one', agent_id: a.id }, { content: 'two', agent_id: b.id }] });
    expect(res.body.succeeded).toBe(2);
    expect(await lastActive(a.id)).toMatch(/Z$/);
    expect(await lastActive(b.id)).toMatch(/Z$/);
  });

  it('POST /v2/memories sets it', async () => {
    const agent = await newAgent('v2-writer');
    expect((await t.request().post('/v2/memories').set(bearer(acct.key)).send({ content: 'a v2 note', agent_id: agent.id })).status).toBe(202);
    expect(await lastActive(agent.id)).toMatch(/Z$/);
  });

  it('PATCH /v1/memories/{id} moves it forward', async () => {
    const agent = await newAgent('editor');
    const created = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'draft', agent_id: agent.id });
    await t.ctx.db.knex('agents').where({ id: agent.id }).update({ last_active_at: new Date('2020-01-01T00:00:00Z') });
    expect((await t.request().patch(`/v1/memories/${created.body.id}`).set(bearer(acct.key)).send({ content: 'final' })).status).toBe(200);
    expect(Date.parse((await lastActive(agent.id))!)).toBeGreaterThan(Date.parse('2020-01-01T00:00:00Z'));
  });

  it('a rejected write leaves it unset', async () => {
    const agent = await newAgent('rejected');
    const res = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: '', agent_id: agent.id });
    expect(res.status).toBe(422);
    expect(await lastActive(agent.id)).toBeNull();
  });
});
