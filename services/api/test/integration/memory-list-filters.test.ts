import { bearer, createAccount, createTestApp, expectError, insertMemory, TestAccount, TestApp } from '@ams/testing';

/** GET /v1/memories filters beyond the spec's agent_id and memory_type, for the console. */
describe('memory list filters', () => {
  let t: TestApp;
  let acct: TestAccount;
  const ids: Record<string, string> = {};
  const list = (query: Record<string, string>) => t.request().get('/v1/memories').query(query).set(bearer(acct.key));
  const listed = async (query: Record<string, string>) => {
    const res = await list(query);
    expect(res.status).toBe(200);
    return (res.body.data as Array<{ id: string }>).map((m) => m.id).sort();
  };

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
    const session = await t.request().post('/v1/sessions').set(bearer(acct.key)).send({ agent_id: 'filters', title: 's' });
    const project = await t.request().post('/v1/projects').set(bearer(acct.key)).send({ name: 'Filters', slug: 'filters' });
    ids.hot = (await insertMemory(t.ctx, acct.accountId, { agentId: 'filters', content: 'hot one', importance: 0.9 })).id;
    ids.session = (await insertMemory(t.ctx, acct.accountId, { agentId: 'filters', content: 'in a session', sessionId: session.body.id })).id;
    ids.project = (await insertMemory(t.ctx, acct.accountId, { agentId: 'filters', content: 'in a project', projectId: project.body.id })).id;
    ids.archived = (await insertMemory(t.ctx, acct.accountId, { agentId: 'filters', content: 'archived', archived: true })).id;
    ids.secret = (await insertMemory(t.ctx, acct.accountId, { agentId: 'filters', content: 'confidential', visibility: 'confidential' })).id;
    ids.failed = (await insertMemory(t.ctx, acct.accountId, { agentId: 'filters', content: 'failed embedding' })).id;
    await t.ctx.db.knex('memories').where({ id: ids.failed }).update({ embedding_status: 'failed', embedding_error: 'model exploded' });
    ids.session_id = session.body.id;
    ids.project_id = project.body.id;
  });
  afterAll(() => t.close());

  it('filters by tier, session, project, archived, visibility and embedding status', async () => {
    expect(await listed({ tier: 'hot' })).toEqual([ids.hot]);
    expect(await listed({ session_id: ids.session_id! })).toEqual([ids.session]);
    expect(await listed({ project_id: ids.project_id! })).toEqual([ids.project]);
    expect(await listed({ archived: 'true' })).toEqual([ids.archived]);
    expect(await listed({ archived: 'false' })).not.toContain(ids.archived);
    expect(await listed({ visibility: 'confidential' })).toEqual([ids.secret]);
    expect(await listed({ embedding_status: 'failed' })).toEqual([ids.failed]);
    expect((await listed({ embedding_status: 'ready' })).length).toBe(5);
  });

  it('combines filters, and total_count counts the filtered set', async () => {
    const res = await list({ agent_id: 'filters', archived: 'false', tier: 'warm' });
    expect(res.body.total_count).toBe(res.body.data.length);
    expect(res.body.data.map((m: { id: string }) => m.id)).not.toContain(ids.archived);
  });

  it('answers 422 naming the field for a bad filter value, never a 500', async () => {
    const bad = [
      [{ tier: 'lukewarm' }, 'tier'],
      [{ session_id: 'not-a-uuid' }, 'session_id'],
      [{ archived: 'maybe' }, 'archived'],
      [{ embedding_status: 'done' }, 'embedding_status'],
    ] as const;
    for (const [query, field] of bad) {
      const body = expectError(await list(query), 422, 'validation_error');
      expect(body.details!.map((d) => d.field)).toContain(field);
    }
  });
});
