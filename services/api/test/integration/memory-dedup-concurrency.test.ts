import { bearer, createAccount, createTestApp, TestAccount, TestApp } from '@ams/testing';

describe('v1 dedup under concurrency', () => {
  let t: TestApp;
  let acct: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('when one agent posts the same content several times at once with deduplicate, exactly one is created', async () => {
    const agent = await t.request().post('/v1/agents').set(bearer(acct.key)).send({ name: 'racer' });
    const body = { content: 'The deploy pipeline runs on Fridays at noon', agent_id: agent.body.id, deduplicate: true };
    const responses = await Promise.all(Array.from({ length: 6 }, () => t.request().post('/v1/memories').set(bearer(acct.key)).send(body)));

    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    const created = responses.filter((r) => r.status === 201);
    const duplicates = responses.filter((r) => r.status === 200);
    for (const d of duplicates) expect(d.body).toMatchObject({ is_duplicate: true, id: created[0]!.body.id });

    const rows = await t.ctx.db.knex('memories').where({ account_id: acct.accountId, agent_id: agent.body.id }).whereNull('deleted_at');
    expect(rows).toHaveLength(1);
  });

  it('without deduplicate, concurrent posts of the same content are all created', async () => {
    const body = { content: 'Standup moved to 9:30', agent_id: 'no-dedup' };
    const responses = await Promise.all(Array.from({ length: 3 }, () => t.request().post('/v1/memories').set(bearer(acct.key)).send(body)));
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201]);
  });
});
