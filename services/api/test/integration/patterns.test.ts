import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '../support/test-app';

describe('patterns', () => {
  let t: TestApp;
  let acct: TestAccount;
  const create = (body: object, key = acct.key) => t.request().post('/v1/patterns').set(bearer(key)).send(body);
  const adopt = (id: string, project: string) => t.request().post(`/v1/patterns/${id}/adopt`).set(bearer(acct.key)).send({ project });
  const unadopt = (id: string, project: string) => t.request().delete(`/v1/patterns/${id}/adopt?project=${project}`).set(bearer(acct.key));

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
    for (const slug of ['alpha', 'beta', 'gamma']) await t.request().post('/v1/projects').set(bearer(acct.key)).send({ name: slug, slug });
  });
  afterAll(() => t.close());

  it('creates a pattern with adoption_count 0 and its source project resolved', async () => {
    const res = await create({ title: 'Validate at the edge', description: 'joi schemas beside routes', category: 'validation', tags: ['api'], example_code: 'validate(schema, req.body)', source_project: 'alpha', metadata: { k: 1 } });
    expect(res.status).toBe(201);
    const alpha = await t.ctx.db.knex('projects').where({ account_id: acct.accountId, slug: 'alpha' }).first();
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      title: 'Validate at the edge',
      description: 'joi schemas beside routes',
      scope: 'global',
      category: 'validation',
      tags: ['api'],
      example_code: 'validate(schema, req.body)',
      source_project_id: alpha.id,
      source_project_slug: 'alpha',
      metadata: { k: 1 },
      adoption_count: 0,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect((await create({ title: 't', description: 'd' })).body).toMatchObject({ category: null, example_code: null, source_project_id: null, source_project_slug: null });
    expectError(await create({ title: 't', description: 'd', source_project: 'no-such' }), 404, 'not_found');
  });

  it.each([
    [{ description: 'd' }, 'title'],
    [{ title: 't' }, 'description'],
    [{ title: 't'.repeat(501), description: 'd' }, 'title'],
    [{ title: 't', description: 'd'.repeat(50_001) }, 'description'],
    [{ title: 't', description: 'd', scope: 'team' }, 'scope'],
    [{ title: 't', description: 'd', category: 'c'.repeat(101) }, 'category'],
    [{ title: 't', description: 'd', example_code: 'e'.repeat(50_001) }, 'example_code'],
    [{ title: 't', description: 'd', tags: Array.from({ length: 21 }, (_, i) => `${i}`) }, 'tags'],
  ])('rejects %j with 422 on %s', async (body, field) => {
    expect(expectError(await create(body), 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
  });

  it('adopts idempotently per project and un-adopts; unknown adoption is 404', async () => {
    const p = await create({ title: 'Retry with backoff', description: 'exponential backoff with jitter', category: 'resilience' });
    expect((await adopt(p.body.id, 'alpha')).body.adoption_count).toBe(1);
    expect((await adopt(p.body.id, 'alpha')).body.adoption_count).toBe(1);
    expect((await adopt(p.body.id, 'beta')).body.adoption_count).toBe(2);
    expect((await unadopt(p.body.id, 'alpha')).status).toBe(204);
    expect((await t.request().get(`/v1/patterns/${p.body.id}`).set(bearer(acct.key))).body.adoption_count).toBe(1);
    expectError(await unadopt(p.body.id, 'alpha'), 404, 'not_found');
    expectError(await unadopt(p.body.id, 'gamma'), 404, 'not_found');
    expectError(await adopt(p.body.id, 'no-such-project'), 404, 'not_found');
    expectError(await t.request().delete(`/v1/patterns/${p.body.id}/adopt`).set(bearer(acct.key)), 422, 'validation_error');
    expect(expectError(await t.request().post(`/v1/patterns/${p.body.id}/adopt`).set(bearer(acct.key)).send({ project: 'p'.repeat(101) }), 422, 'validation_error').details![0]!.field).toBe('project');
  });

  it('keeps adoption_count exact under concurrent adopt and un-adopt', async () => {
    const p = await create({ title: 'Concurrent', description: 'c' });
    const projects = ['alpha', 'beta', 'gamma'];
    await Promise.all(Array.from({ length: 21 }, (_, i) => adopt(p.body.id, projects[i % 3]!)));
    expect((await t.request().get(`/v1/patterns/${p.body.id}`).set(bearer(acct.key))).body.adoption_count).toBe(3);
    await Promise.all(Array.from({ length: 12 }, (_, i) => unadopt(p.body.id, projects[i % 2]!)));
    const after = await t.request().get(`/v1/patterns/${p.body.id}`).set(bearer(acct.key));
    expect(after.body.adoption_count).toBe(1);
    const rows = await t.ctx.db.knex('pattern_adoptions').where({ pattern_id: p.body.id });
    expect(rows).toHaveLength(1);
  });

  it('lists by category, scope and tag; patches with merge; searches semantically', async () => {
    await create({ title: 'Structured logging', description: 'log JSON lines with request ids', category: 'observability', tags: ['logs'], scope: 'project' });
    await create({ title: 'Contract tests', description: 'test the HTTP contract with supertest', category: 'testing', tags: ['tests'] });
    const titles = async (q: string) => (await t.request().get(`/v1/patterns?${q}`).set(bearer(acct.key))).body.data.map((p: { title: string }) => p.title);
    expect(await titles('category=observability')).toEqual(['Structured logging']);
    expect(await titles('scope=project')).toEqual(['Structured logging']);
    expect(await titles('tag=tests')).toEqual(['Contract tests']);
    const search = await t.request().post('/v1/patterns/search').set(bearer(acct.key)).send({ query: 'JSON logs with request ids' });
    expect(search.body.data[0].pattern.title).toBe('Structured logging');
    expect(search.body).toMatchObject({ query: 'JSON logs with request ids', total: search.body.data.length });
    const filtered = await t.request().post('/v1/patterns/search').set(bearer(acct.key)).send({ query: 'logs', category: 'testing' });
    expect(filtered.body.data.map((d: { pattern: { category: string } }) => d.pattern.category)).toEqual(['testing']);
    const p = (await t.request().get('/v1/patterns?tag=tests').set(bearer(acct.key))).body.data[0];
    const patched = await t.request().patch(`/v1/patterns/${p.id}`).set(bearer(acct.key)).send({ example_code: 'await request(app).get("/")', metadata: { lang: 'ts' } });
    expect(patched.body).toMatchObject({ example_code: 'await request(app).get("/")', metadata: { lang: 'ts' } });
  });

  it('deletes softly; isolates accounts; checks scopes', async () => {
    const p = await create({ title: 'Doomed', description: 'd' });
    expect((await t.request().delete(`/v1/patterns/${p.body.id}`).set(bearer(acct.key))).status).toBe(204);
    expectError(await t.request().get(`/v1/patterns/${p.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    const other = await createAccount(t.ctx);
    const theirs = await create({ title: 'Theirs', description: 't' }, other.key);
    expectError(await t.request().get(`/v1/patterns/${theirs.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    expectError(await adopt(theirs.body.id, 'alpha'), 404, 'not_found');
    expect(expectError(await create({ title: 't', description: 'd' }, await acct.keyWith(['read'])), 403, 'authorization_error').message).toBe('Insufficient scope. Required: write');
  });
});
