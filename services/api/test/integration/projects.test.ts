import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '../support/test-app';

describe('projects', () => {
  let t: TestApp;
  let acct: TestAccount;
  const create = (body: object, key = acct.key) => t.request().post('/v1/projects').set(bearer(key)).send(body);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('creates a project with every field; optional text is null', async () => {
    const res = await create({ name: 'Apollo', slug: 'apollo', description: 'Moon', stack: { languages: ['ts'] }, repo_url: 'https://git.example/apollo', metadata: { k: 1 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      slug: 'apollo',
      name: 'Apollo',
      description: 'Moon',
      stack: { languages: ['ts'] },
      repo_url: 'https://git.example/apollo',
      metadata: { k: 1 },
      memory_count: 0,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect((await create({ name: 'Bare', slug: 'bare' })).body).toMatchObject({ description: null, repo_url: null, stack: {}, metadata: {} });
  });

  it('answers 409 for a live duplicate slug; a deleted project frees its slug', async () => {
    const first = await create({ name: 'Dup', slug: 'dup' });
    expectError(await create({ name: 'Dup 2', slug: 'dup' }), 409, 'conflict');
    await t.request().delete(`/v1/projects/${first.body.id}`).set(bearer(acct.key));
    expect((await create({ name: 'Dup 3', slug: 'dup' })).status).toBe(201);
    const other = await createAccount(t.ctx);
    expect((await create({ name: 'Theirs', slug: 'dup' }, other.key)).status).toBe(201);
  });

  it.each([
    [{ slug: 'x' }, 'name'],
    [{ name: 'x' }, 'slug'],
    [{ name: 'x', slug: 'Upper' }, 'slug'],
    [{ name: 'x', slug: 'has space' }, 'slug'],
    [{ name: 'x', slug: 'under_score' }, 'slug'],
    [{ name: 'x', slug: 's'.repeat(101) }, 'slug'],
    [{ name: 'n'.repeat(256), slug: 'ok' }, 'name'],
    [{ name: 'x', slug: 'ok', description: 'd'.repeat(5_001) }, 'description'],
    [{ name: 'x', slug: 'ok', repo_url: 'u'.repeat(501) }, 'repo_url'],
    [{ name: 'x', slug: 'ok', stack: { blob: 'x'.repeat(10_231) } }, 'stack'],
  ])('rejects %j with 422 on %s', async (body, field) => {
    expect(expectError(await create(body), 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
  });

  it('accepts the longest valid values', async () => {
    const res = await create({ name: 'n'.repeat(255), slug: 's'.repeat(100), description: 'd'.repeat(5_000), repo_url: 'u'.repeat(500) });
    expect(res.status).toBe(201);
  });

  it('lists, gets, patches (metadata merged) and deletes softly keeping memories', async () => {
    const p = await create({ name: 'Gemini', slug: 'gemini', metadata: { a: 1 } });
    const m = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'p', content: 'gemini memory', project: 'gemini' });
    expect(m.body.project_id).toBe(p.body.id);
    const viaId = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'p', content: 'by id', project_id: p.body.id, project: 'apollo' });
    expect(viaId.body.project_id).toBe(p.body.id); // project_id wins over the slug
    expect((await t.request().get(`/v1/projects/${p.body.id}`).set(bearer(acct.key))).body.memory_count).toBe(2);
    const list = await t.request().get('/v1/projects?limit=100').set(bearer(acct.key));
    expect(list.body.data.map((x: { slug: string }) => x.slug)).toContain('gemini');
    const patched = await t.request().patch(`/v1/projects/${p.body.id}`).set(bearer(acct.key)).send({ description: 'Twins', metadata: { b: 2 } });
    expect(patched.body).toMatchObject({ description: 'Twins', metadata: { a: 1, b: 2 }, slug: 'gemini' });
    expect((await t.request().delete(`/v1/projects/${p.body.id}`).set(bearer(acct.key))).status).toBe(204);
    expectError(await t.request().get(`/v1/projects/${p.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    expect((await t.request().get(`/v1/memories/${m.body.id}`).set(bearer(acct.key))).body.project_id).toBe(p.body.id);
  });

  it('builds the project context: stack, key memories, active decisions, adopted patterns', async () => {
    const p = await create({ name: 'Mercury', slug: 'mercury', stack: { databases: ['postgres'] } });
    await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'p', content: 'minor note', project: 'mercury', importance: 0.2 });
    await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'p', content: 'critical constraint', project: 'mercury', importance: 0.95 });
    await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'p', content: 'hidden', project: 'mercury', visibility: 'confidential' });
    const d = await t.request().post('/v1/decisions').set(bearer(acct.key)).send({ title: 'Use pgvector', rationale: 'one database', project_slug: 'mercury' });
    const old = await t.request().post('/v1/decisions').set(bearer(acct.key)).send({ title: 'Old idea', rationale: 'x', project_slug: 'mercury' });
    await t.request().post(`/v1/decisions/${old.body.id}/supersede`).set(bearer(acct.key)).send({ title: 'New idea', rationale: 'y' });
    const pat = await t.request().post('/v1/patterns').set(bearer(acct.key)).send({ title: 'Result type', description: 'Return errors as values', category: 'errors' });
    await t.request().post(`/v1/patterns/${pat.body.id}/adopt`).set(bearer(acct.key)).send({ project: 'mercury' });

    const res = await t.request().get('/v1/projects/mercury/context').set(bearer(acct.key));
    expect(res.status).toBe(200);
    expect(res.body.project).toEqual({ id: p.body.id, slug: 'mercury', name: 'Mercury', stack: { databases: ['postgres'] } });
    expect(res.body.memories.map((m: { content: string }) => m.content)).toEqual(['critical constraint', 'minor note']);
    expect(Object.keys(res.body.memories[0]).sort()).toEqual(['content', 'created_at', 'id', 'importance', 'memory_type']);
    expect(Number.isInteger(res.body.memories[0].created_at)).toBe(true);
    const titles = res.body.decisions.map((x: { title: string }) => x.title).sort();
    expect(titles).toEqual(['New idea', 'Use pgvector']);
    expect(res.body.decisions.find((x: { id: string }) => x.id === d.body.id)).toEqual({ id: d.body.id, title: 'Use pgvector', status: 'active' });
    expect(res.body.patterns).toEqual([{ id: pat.body.id, title: 'Result type', category: 'errors' }]);
    expectError(await t.request().get('/v1/projects/nope-nope/context').set(bearer(acct.key)), 404, 'not_found');
  });

  it("isolates accounts and checks scopes", async () => {
    const other = await createAccount(t.ctx);
    const theirs = await create({ name: 'T', slug: 'theirs-only' }, other.key);
    expectError(await t.request().get(`/v1/projects/${theirs.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    expectError(await t.request().get('/v1/projects/theirs-only/context').set(bearer(acct.key)), 404, 'not_found');
    expectError(await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'p', content: 'x', project_id: theirs.body.id }), 404, 'not_found');
    expect(expectError(await create({ name: 'x', slug: 'x' }, await acct.keyWith(['read'])), 403, 'authorization_error').message).toBe('Insufficient scope. Required: write');
  });
});
