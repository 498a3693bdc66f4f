import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '../support/test-app';

describe('decisions', () => {
  let t: TestApp;
  let acct: TestAccount;
  const create = (body: object, key = acct.key) => t.request().post('/v1/decisions').set(bearer(key)).send(body);
  const patch = (id: string, body: object) => t.request().patch(`/v1/decisions/${id}`).set(bearer(acct.key)).send(body);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('creates a decision, active by default, with every field', async () => {
    const session = await t.request().post('/v1/sessions').set(bearer(acct.key)).send({});
    const res = await create({ title: 'Use Postgres', rationale: 'one engine for rows and vectors', agent_id: 'architect', session_id: session.body.id, project_slug: 'core', tags: ['db'], metadata: { k: 1 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      agent_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      session_id: session.body.id,
      project_slug: 'core',
      title: 'Use Postgres',
      rationale: 'one engine for rows and vectors',
      alternatives: null,
      status: 'active',
      superseded_by: null,
      tags: ['db'],
      metadata: { k: 1 },
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect((await create({ title: 'Try Bun', rationale: 'speed', status: 'experimental' })).body.status).toBe('experimental');
  });

  it.each([
    [{ rationale: 'r' }, 'title'],
    [{ title: 't' }, 'rationale'],
    [{ title: 't'.repeat(501), rationale: 'r' }, 'title'],
    [{ title: 't', rationale: 'r'.repeat(50_001) }, 'rationale'],
    [{ title: 't', rationale: 'r', alternatives: 'a'.repeat(50_001) }, 'alternatives'],
    [{ title: 't', rationale: 'r', status: 'superseded' }, 'status'],
    [{ title: 't', rationale: 'r', status: 'reverted' }, 'status'],
    [{ title: 't', rationale: 'r', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
    [{ title: 't', rationale: 'r', tags: ['x'.repeat(101)] }, 'tags.0'],
    [{ title: 't', rationale: 'r', session_id: 'nope' }, 'session_id'],
  ])('rejects %j with 422 on %s', async (body, field) => {
    expect(expectError(await create(body), 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
  });

  it('accepts the bounds: 500-char title, 20 tags of 100 chars', async () => {
    const res = await create({ title: 't'.repeat(500), rationale: 'r', tags: Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(100, 'x')) });
    expect(res.status).toBe(201);
  });

  it('answers 404 for an unknown session', async () => {
    expectError(await create({ title: 't', rationale: 'r', session_id: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found');
  });

  it('lists by project, status and tag', async () => {
    await create({ title: 'A', rationale: 'a', project_slug: 'listing', tags: ['x', 'y'] });
    await create({ title: 'B', rationale: 'b', project_slug: 'listing', tags: ['y'], status: 'experimental' });
    await create({ title: 'C', rationale: 'c', project_slug: 'elsewhere', tags: ['x'] });
    const titles = async (q: string) => (await t.request().get(`/v1/decisions?${q}`).set(bearer(acct.key))).body.data.map((d: { title: string }) => d.title);
    expect(await titles('project_slug=listing')).toEqual(['B', 'A']);
    expect(await titles('project_slug=listing&status=experimental')).toEqual(['B']);
    expect(await titles('project_slug=listing&tag=x')).toEqual(['A']);
    expectError(await t.request().get('/v1/decisions?status=maybe').set(bearer(acct.key)), 422, 'validation_error');
  });

  it('moves status among active, experimental and reverted; superseded only via supersede', async () => {
    const d = await create({ title: 'Move', rationale: 'm' });
    expect((await patch(d.body.id, { status: 'experimental' })).body.status).toBe('experimental');
    expect((await patch(d.body.id, { status: 'reverted' })).body.status).toBe('reverted');
    expect((await patch(d.body.id, { status: 'active', metadata: { a: 1 } })).body).toMatchObject({ status: 'active', metadata: { a: 1 } });
    expectError(await patch(d.body.id, { status: 'superseded' }), 409, 'conflict');
    expectError(await patch(d.body.id, { status: 'sideways' }), 422, 'validation_error');
  });

  it('supersedes in one step: new active decision inherits the project; the old one is final', async () => {
    const old = await create({ title: 'REST', rationale: 'simple', project_slug: 'api', agent_id: 'arch' });
    const res = await t.request().post(`/v1/decisions/${old.body.id}/supersede`).set(bearer(acct.key)).send({ title: 'REST + webhooks', rationale: 'push events', tags: ['api'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'active', project_slug: 'api', agent_id: old.body.agent_id, title: 'REST + webhooks', tags: ['api'] });
    const after = await t.request().get(`/v1/decisions/${old.body.id}`).set(bearer(acct.key));
    expect(after.body).toMatchObject({ status: 'superseded', superseded_by: res.body.id });
    expectError(await t.request().post(`/v1/decisions/${old.body.id}/supersede`).set(bearer(acct.key)).send({ title: 'again', rationale: 'r' }), 409, 'conflict');
    expectError(await patch(old.body.id, { status: 'active' }), 409, 'conflict');
    expectError(await t.request().post(`/v1/decisions/${old.body.id}/supersede`).set(bearer(acct.key)).send({ title: 'x' }), 422, 'validation_error');
  });

  it('only one of two concurrent supersedes wins', async () => {
    const d = await create({ title: 'Contested', rationale: 'c' });
    const results = await Promise.all([0, 1].map((i) => t.request().post(`/v1/decisions/${d.body.id}/supersede`).set(bearer(acct.key)).send({ title: `winner ${i}`, rationale: 'r' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it('checks decisions semantically, filtered by project', async () => {
    await create({ title: 'Cache sessions in Redis', rationale: 'Redis keeps session state fast', project_slug: 'check' });
    await create({ title: 'Write docs in Markdown', rationale: 'Markdown renders everywhere', project_slug: 'check' });
    await create({ title: 'Cache sessions in Memcached', rationale: 'Memcached keeps session state', project_slug: 'other' });
    const res = await t.request().post('/v1/decisions/check').set(bearer(acct.key)).send({ query: 'redis session cache', project_slug: 'check' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ query: 'redis session cache', total: 2 });
    expect(res.body.data[0].decision.title).toBe('Cache sessions in Redis');
    expect(res.body.data[0].score).toBeGreaterThan(res.body.data[1].score);
    const limited = await t.request().post('/v1/decisions/check').set(bearer(acct.key)).send({ query: 'cache', limit: 1 });
    expect(limited.body.data).toHaveLength(1);
    expectError(await t.request().post('/v1/decisions/check').set(bearer(acct.key)).send({}), 422, 'validation_error');
  });

  it('deletes softly; isolates accounts; checks scopes', async () => {
    const d = await create({ title: 'Gone', rationale: 'g' });
    expect((await t.request().delete(`/v1/decisions/${d.body.id}`).set(bearer(acct.key))).status).toBe(204);
    expectError(await t.request().get(`/v1/decisions/${d.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    const other = await createAccount(t.ctx);
    const theirs = await create({ title: 'Theirs', rationale: 't' }, other.key);
    expectError(await t.request().get(`/v1/decisions/${theirs.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    expectError(await t.request().post(`/v1/decisions/${theirs.body.id}/supersede`).set(bearer(acct.key)).send({ title: 'x', rationale: 'y' }), 404, 'not_found');
    expect(expectError(await create({ title: 't', rationale: 'r' }, await acct.keyWith(['read'])), 403, 'authorization_error').message).toBe('Insufficient scope. Required: write');
  });
});
