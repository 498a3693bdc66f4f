import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp, waitFor } from '@ams/testing';

/**
 * A process reuses the id an agent reference resolved to for AGENT_CACHE_MS (docs/api.md, "Agents
 * by id or name"). A create never stores under an agent deleted since (its INSERT checks the agent
 * is live), a rename or delete through this process is followed at once, and one made elsewhere
 * (here: straight in the database) within the bound.
 */
describe('agent references reused by a process', () => {
  let t: TestApp;
  let acct: TestAccount;
  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  const v1 = (body: object) => t.request().post('/v1/memories').set(bearer(acct.key)).send(body);
  const v2 = (body: object) => t.request().post('/v2/memories').set(bearer(acct.key)).send(body);
  const search = (body: object) => t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ search_mode: 'keyword', ...body });
  const agentOf = async (memoryId: string) => (await t.ctx.db.knex('memories').where({ account_id: acct.accountId, id: memoryId }).first()).agent_id as string;
  const agentNamed = async (name: string) => (await t.request().get('/v1/agents').set(bearer(acct.key))).body.data.find((a: { name: string }) => a.name === name);
  /** Another process deleting the agent: nothing of this process hears of it. */
  const deleteElsewhere = (id: string) => t.ctx.db.knex('agents').where({ account_id: acct.accountId, id }).update({ deleted_at: new Date() });

  it.each([
    ['v2', v2],
    ['v1', v1],
  ])('a %s create by name after the agent was deleted elsewhere makes the agent anew, never storing under the deleted one', async (_, create) => {
    const name = `gone-${_}`;
    const first = await create({ content: 'first words about harbours', agent_id: name });
    expect(first.status).toBeLessThan(300);
    const old = await agentOf(first.body.id ?? first.body.memory?.id);
    await deleteElsewhere(old);
    const second = await create({ content: 'second words about harbours', agent_id: name });
    expect(second.status).toBeLessThan(300);
    const now = await agentOf(second.body.id ?? second.body.memory?.id);
    expect(now).not.toBe(old);
    expect((await agentNamed(name)).id).toBe(now);
  });

  it('a create naming by id an agent deleted elsewhere is a 404, and stores nothing', async () => {
    const agent = (await t.request().post('/v1/agents').set(bearer(acct.key)).send({ name: 'by-id' })).body;
    expect((await v2({ content: 'kept under its id', agent_id: agent.id })).status).toBe(202);
    await deleteElsewhere(agent.id);
    const before = await t.ctx.db.knex('memories').where({ account_id: acct.accountId, agent_id: agent.id }).count<{ count: number }[]>('* as count');
    expectError(await v2({ content: 'refused under its id', agent_id: agent.id }), 404, 'not_found');
    expectError(await v1({ content: 'refused under its id', agent_id: agent.id }), 404, 'not_found');
    const after = await t.ctx.db.knex('memories').where({ account_id: acct.accountId, agent_id: agent.id }).count<{ count: number }[]>('* as count');
    expect(Number(after[0]!.count)).toBe(Number(before[0]!.count));
  });

  it('an agent deleted through the API is refused at once: a search by its name matches nothing, a create makes it anew', async () => {
    const created = await v2({ content: 'lighthouse keepers log the weather', agent_id: 'deleted-here' });
    const old = await agentOf(created.body.id);
    expect((await search({ query: 'lighthouse', agent_id: 'deleted-here' })).body.data).toHaveLength(1);
    expect((await t.request().delete(`/v1/agents/${old}`).set(bearer(acct.key))).status).toBe(204);
    expect((await search({ query: 'lighthouse', agent_id: 'deleted-here' })).body.data).toHaveLength(0);
    const again = await v2({ content: 'lighthouse keepers again', agent_id: 'deleted-here' });
    expect(await agentOf(again.body.id)).not.toBe(old);
  });

  it('an agent renamed through the API is followed at once: its old name is a new agent, its new name finds its memories', async () => {
    const created = await v2({ content: 'cartographers draw coastlines', agent_id: 'old-name' });
    const id = await agentOf(created.body.id);
    expect((await search({ query: 'cartographers', agent_id: 'old-name' })).body.data).toHaveLength(1);
    expect((await t.request().patch(`/v1/agents/${id}`).set(bearer(acct.key)).send({ name: 'new-name' })).status).toBe(200);
    expect((await search({ query: 'cartographers', agent_id: 'old-name' })).body.data).toHaveLength(0);
    expect((await search({ query: 'cartographers', agent_id: 'new-name' })).body.data).toHaveLength(1);
    const next = await v2({ content: 'cartographers again', agent_id: 'old-name' });
    expect(await agentOf(next.body.id)).not.toBe(id);
  });
});

describe('AGENT_CACHE_MS', () => {
  // A bound of its own needs a database pool of its own: PostgreSQL on both runs.
  it('a rename made elsewhere is followed within the bound', async () => {
    const t = await createTestApp({ AGENT_CACHE_MS: '300' }, { backend: 'postgres' });
    try {
      const acct = await createAccount(t.ctx);
      const create = () => t.request().post('/v2/memories').set(bearer(acct.key)).send({ content: 'tide tables', agent_id: 'renamed-elsewhere' });
      const first = await create();
      const { agent_id: id } = await t.ctx.db.knex('memories').where({ account_id: acct.accountId, id: first.body.id }).first();
      await t.ctx.db.knex('agents').where({ account_id: acct.accountId, id }).update({ name: 'elsewhere-name' });
      await waitFor(
        async () => {
          const res = await create();
          return (await t.ctx.db.knex('memories').where({ account_id: acct.accountId, id: res.body.id }).first()).agent_id !== id;
        },
        5_000,
        'the old name resolved afresh',
      );
    } finally {
      await t.close();
    }
  });

  it('0 looks every reference up', async () => {
    const t = await createTestApp({ AGENT_CACHE_MS: '0' }, { backend: 'postgres' });
    try {
      const acct = await createAccount(t.ctx);
      const search = (agent_id: string) => t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'estuary', search_mode: 'keyword', agent_id });
      const created = await t.request().post('/v2/memories').set(bearer(acct.key)).send({ content: 'estuary birds', agent_id: 'uncached' });
      const { agent_id: id } = await t.ctx.db.knex('memories').where({ account_id: acct.accountId, id: created.body.id }).first();
      expect((await search('uncached')).body.data).toHaveLength(1);
      await t.ctx.db.knex('agents').where({ account_id: acct.accountId, id }).update({ name: 'renamed-at-once' });
      expect((await search('uncached')).body.data).toHaveLength(0);
      expect((await search('renamed-at-once')).body.data).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});
