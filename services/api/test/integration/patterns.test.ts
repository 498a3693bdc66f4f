import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const MISSING = '00000000-0000-4000-8000-000000000000';
const objectOf = (bytes: number) => ({ blob: 'x'.repeat(bytes - 11) });
const twentyTags = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(100, 'x'));

describe('patterns', () => {
  let t: TestApp;
  let acct: TestAccount;
  let slugCounter = 0;
  const req = () => t.request();
  const auth = () => bearer(acct.key);
  const create = (body: object, key = acct.key) => req().post('/v1/patterns').set(bearer(key)).send(body);
  const get = (id: string, key = acct.key) => req().get(`/v1/patterns/${id}`).set(bearer(key));
  const patch = (id: string, body: object, key = acct.key) => req().patch(`/v1/patterns/${id}`).set(bearer(key)).send(body);
  const search = (body: object, key = acct.key) => req().post('/v1/patterns/search').set(bearer(key)).send(body);
  const adopt = (id: string, project: string, key = acct.key) => req().post(`/v1/patterns/${id}/adopt`).set(bearer(key)).send({ project });
  const unadopt = (id: string, project: string, key = acct.key) => req().delete(`/v1/patterns/${id}/adopt?project=${project}`).set(bearer(key));
  const invalid = (res: Parameters<typeof expectError>[0]) => expectError(res, 422, 'validation_error').details!.map((d) => d.field);
  /** A new live project of the account; returns its slug. */
  const project = async (label = 'proj', key = acct.key): Promise<string> => {
    const slug = `${label}-${++slugCounter}`;
    const res = await req().post('/v1/projects').set(bearer(key)).send({ name: slug, slug });
    if (res.status !== 201) throw new Error(`project ${slug}: ${res.status}`);
    return slug;
  };
  const adoptionRows = async (patternId: string) => Number((await t.ctx.db.knex('pattern_adoptions').where({ pattern_id: patternId }).count('* as n').first())!.n);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  describe('POST /v1/patterns', () => {
    it('creates a pattern with every field, adoption_count 0 and its source project resolved', async () => {
      const source = await project('source');
      const res = await create({
        title: 'Validate at the edge',
        description: 'joi schemas beside routes',
        scope: 'project',
        category: 'validation',
        tags: ['api'],
        example_code: 'validate(schema, req.body)',
        source_project: source,
        metadata: { k: 1 },
      });
      expect(res.status).toBe(201);
      const sourceRow = await t.ctx.db.knex('projects').where({ account_id: acct.accountId, slug: source }).first();
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        title: 'Validate at the edge',
        description: 'joi schemas beside routes',
        scope: 'project',
        category: 'validation',
        tags: ['api'],
        example_code: 'validate(schema, req.body)',
        source_project_id: sourceRow.id,
        source_project_slug: source,
        metadata: { k: 1 },
        adoption_count: 0,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(res.body).not.toHaveProperty('source_project');
    });

    it('defaults: scope global, optional text null, tags [] and metadata {}', async () => {
      expect((await create({ title: 't', description: 'd' })).body).toMatchObject({
        scope: 'global',
        category: null,
        example_code: null,
        source_project_id: null,
        source_project_slug: null,
        tags: [],
        metadata: {},
        adoption_count: 0,
      });
    });

    it('accepts the bounds: 500-char title, 50,000-char description and example_code, 100-char category, 20×100 tags, 10 KB metadata', async () => {
      const res = await create({
        title: 't'.repeat(500),
        description: 'd'.repeat(50_000),
        example_code: 'e'.repeat(50_000),
        category: 'c'.repeat(100),
        tags: twentyTags,
        metadata: objectOf(10_240),
      });
      expect(res.status).toBe(201);
    });

    it.each([
      ['a missing title', { description: 'd' }, 'title'],
      ['a missing description', { title: 't' }, 'description'],
      ['a whitespace title', { title: '  ', description: 'd' }, 'title'],
      ['an empty description', { title: 't', description: '' }, 'description'],
      ['a 501-character title', { title: 't'.repeat(501), description: 'd' }, 'title'],
      ['a 50,001-character description', { title: 't', description: 'd'.repeat(50_001) }, 'description'],
      ['an unknown scope', { title: 't', description: 'd', scope: 'team' }, 'scope'],
      ['a 101-character category', { title: 't', description: 'd', category: 'c'.repeat(101) }, 'category'],
      ['50,001 characters of example_code', { title: 't', description: 'd', example_code: 'e'.repeat(50_001) }, 'example_code'],
      ['21 tags', { title: 't', description: 'd', tags: [...twentyTags, 'x'] }, 'tags'],
      ['a 101-character tag', { title: 't', description: 'd', tags: ['x'.repeat(101)] }, 'tags.0'],
      ['a source_project out of form', { title: 't', description: 'd', source_project: 'Bad Slug' }, 'source_project'],
      ['metadata of 10,241 bytes', { title: 't', description: 'd', metadata: objectOf(10_241) }, 'metadata'],
    ])('rejects %s with 422 naming the field', async (_label, body, field) => {
      expect(invalid(await create(body))).toContain(field);
    });

    it('creates an unregistered, deleted or foreign source_project as a new project of the account', async () => {
      const fresh = await create({ title: 't', description: 'd', source_project: 'no-such' });
      expect(fresh.status).toBe(201);
      const created = await t.ctx.db.knex('projects').where({ account_id: acct.accountId, slug: 'no-such' }).whereNull('deleted_at').first();
      expect(fresh.body).toMatchObject({ source_project_id: created.id, source_project_slug: 'no-such' });
      const deleted = await project('deleted-source');
      const row = await t.ctx.db.knex('projects').where({ account_id: acct.accountId, slug: deleted }).first();
      await req().delete(`/v1/projects/${row.id}`).set(auth());
      const again = await create({ title: 't', description: 'd', source_project: deleted });
      expect(again.body.source_project_id).not.toBe(row.id);
      const other = await createAccount(t.ctx);
      const theirs = await project('their-source', other.key);
      const theirRow = await t.ctx.db.knex('projects').where({ account_id: other.accountId, slug: theirs }).first();
      const mine = await create({ title: 't', description: 'd', source_project: theirs });
      expect(mine.body.source_project_id).not.toBe(theirRow.id);
    });

    it('needs write scope', async () => {
      expect(expectError(await create({ title: 't', description: 'd' }, await acct.keyWith(['read'])), 403, 'authorization_error').message).toBe(
        'Insufficient scope. Required: write',
      );
    });
  });

  describe('GET /v1/patterns and /v1/patterns/{id}', () => {
    it('gets a pattern with its example_code', async () => {
      const p = await create({ title: 'Example', description: 'has code', example_code: 'const x = 1;' });
      const res = await get(p.body.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(p.body);
    });

    it('lists live patterns newest first, filtered by category, scope and tag, and pages', async () => {
      const other = await createAccount(t.ctx);
      const a = await create({ title: 'Structured logging', description: 'JSON lines', category: 'observability', tags: ['logs'], scope: 'project' }, other.key);
      const b = await create({ title: 'Contract tests', description: 'supertest', category: 'testing', tags: ['tests', 'api'] }, other.key);
      const c = await create({ title: 'Request ids', description: 'propagate', category: 'observability', tags: ['api'] }, other.key);
      const gone = await create({ title: 'Gone', description: 'deleted', category: 'observability', tags: ['api'] }, other.key);
      await req().delete(`/v1/patterns/${gone.body.id}`).set(bearer(other.key));

      const all = await req().get('/v1/patterns').set(bearer(other.key));
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ data: [c.body, b.body, a.body], has_more: false, next_cursor: null, total_count: 3 });
      const titles = async (q: string) => (await req().get(`/v1/patterns?${q}`).set(bearer(other.key))).body.data.map((p: { title: string }) => p.title);
      expect(await titles('category=observability')).toEqual(['Request ids', 'Structured logging']);
      expect(await titles('scope=project')).toEqual(['Structured logging']);
      expect(await titles('scope=global')).toEqual(['Request ids', 'Contract tests']);
      expect(await titles('tag=api')).toEqual(['Request ids', 'Contract tests']);
      expect(await titles('tag=api&category=testing')).toEqual(['Contract tests']);

      const first = await req().get('/v1/patterns?limit=2').set(bearer(other.key));
      expect(first.body).toMatchObject({ total_count: 3, has_more: true, next_cursor: expect.any(String) });
      const next = await req().get(`/v1/patterns?limit=2&cursor=${first.body.next_cursor}`).set(bearer(other.key));
      expect(next.body.data.map((p: { id: string }) => p.id)).toEqual([a.body.id]);
      expect((await req().get('/v1/patterns?limit=1&offset=1').set(bearer(other.key))).body.data[0].id).toBe(b.body.id);

      const mine = await req().get('/v1/patterns?limit=100').set(auth());
      expect(mine.body.data.map((p: { id: string }) => p.id)).not.toContain(a.body.id);
    });

    it.each([['scope=team'], ['limit=0'], ['limit=101'], ['category=' + 'c'.repeat(101)], ['tag=' + 't'.repeat(101)]])('rejects %s with 422', async (q) => {
      expectError(await req().get(`/v1/patterns?${q}`).set(auth()), 422, 'validation_error');
    });

    it("answers 404 for unknown, non-UUID, deleted and foreign ids; needs read scope", async () => {
      expectError(await get(MISSING), 404, 'not_found');
      expectError(await get('not-a-uuid'), 404, 'not_found');
      const other = await createAccount(t.ctx);
      const theirs = await create({ title: 'Theirs', description: 't' }, other.key);
      expectError(await get(theirs.body.id), 404, 'not_found');
      const p = await create({ title: 'Mine', description: 'm' });
      expect((await get(p.body.id, await acct.keyWith(['read']))).status).toBe(200);
      expectError(await get(p.body.id, await acct.keyWith(['write'])), 403, 'authorization_error');
    });
  });

  describe('PATCH /v1/patterns/{id}', () => {
    it('updates the given fields and merges metadata', async () => {
      const p = await create({ title: 'Old', description: 'old', category: 'a', tags: ['x'], metadata: { a: 1, b: 1 } });
      const res = await patch(p.body.id, { title: 'New', scope: 'project', category: 'b', tags: ['y'], example_code: 'code()', metadata: { b: 2, c: 3 } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...p.body,
        title: 'New',
        scope: 'project',
        category: 'b',
        tags: ['y'],
        example_code: 'code()',
        metadata: { a: 1, b: 2, c: 3 },
        updated_at: expect.stringMatching(ISO),
      });
      expect((await get(p.body.id)).body).toEqual(res.body);
    });

    it('re-embeds when the title or description changes, so search finds the new text', async () => {
      const category = `reembed-${++slugCounter}`;
      const p = await create({ title: 'Retry politely', description: 'exponential backoff', category });
      await create({ title: 'Feature flags', description: 'toggle code paths', category });
      await patch(p.body.id, { description: 'circuit breaker opens after repeated failures' });
      const res = await search({ query: 'circuit breaker failures', category });
      expect(res.body.data[0].pattern.id).toBe(p.body.id);
    });

    it.each([
      ['an empty body', {}],
      ['an empty title', { title: '' }],
      ['a 501-character title', { title: 't'.repeat(501) }],
      ['a 50,001-character description', { description: 'd'.repeat(50_001) }],
      ['an unknown scope', { scope: 'team' }],
      ['a 101-character category', { category: 'c'.repeat(101) }],
      ['50,001 characters of example_code', { example_code: 'e'.repeat(50_001) }],
      ['a source_project (set only at creation)', { source_project: 'x' }],
      ['adoption_count (counted, not set)', { adoption_count: 5 }],
    ])('rejects %s with 422', async (_label, body) => {
      const p = await create({ title: 't', description: 'd' });
      expectError(await patch(p.body.id, body), 422, 'validation_error');
    });

    it('answers 404 for unknown, deleted and foreign patterns; needs write scope', async () => {
      expectError(await patch(MISSING, { title: 'x' }), 404, 'not_found');
      const p = await create({ title: 't', description: 'd' });
      expectError(await patch(p.body.id, { title: 'x' }, await acct.keyWith(['read'])), 403, 'authorization_error');
      await req().delete(`/v1/patterns/${p.body.id}`).set(auth());
      expectError(await patch(p.body.id, { title: 'x' }), 404, 'not_found');
      const other = await createAccount(t.ctx);
      const theirs = await create({ title: 'Theirs', description: 't' }, other.key);
      expectError(await patch(theirs.body.id, { title: 'mine' }), 404, 'not_found');
    });
  });

  describe('POST /v1/patterns/search', () => {
    it('ranks patterns by similarity with scores in 0..1, filtered by category', async () => {
      const other = await createAccount(t.ctx);
      const logging = await create({ title: 'Structured logging', description: 'log JSON lines with request ids', category: 'observability' }, other.key);
      await create({ title: 'Contract tests', description: 'test the HTTP contract with supertest', category: 'testing' }, other.key);
      const res = await search({ query: 'JSON logs with request ids' }, other.key);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'query', 'total']);
      expect(res.body).toMatchObject({ query: 'JSON logs with request ids', total: 2 });
      expect(res.body.data[0]).toEqual({
        pattern: logging.body,
        score: expect.any(Number),
        // Flat copies for existing clients (docs/clients.md).
        title: logging.body.title,
        name: logging.body.title,
        category: logging.body.category,
        description: logging.body.description,
      });
      expect(res.body.data[0].score).toBeGreaterThan(res.body.data[1].score);
      for (const { score } of res.body.data) expect(score >= 0 && score <= 1).toBe(true);
      const filtered = await search({ query: 'logs', category: 'testing' }, other.key);
      expect(filtered.body.data.map((d: { pattern: { category: string } }) => d.pattern.category)).toEqual(['testing']);
    });

    it('returns 10 by default and honours limit 1..100', async () => {
      const category = `limit-${++slugCounter}`;
      for (let i = 0; i < 12; i++) await create({ title: `Limit pattern ${i}`, description: 'about limits', category });
      expect((await search({ query: 'limits', category })).body.total).toBe(10);
      expect((await search({ query: 'limits', category, limit: 1 })).body.data).toHaveLength(1);
      expect((await search({ query: 'limits', category, limit: 100 })).body.total).toBe(12);
    });

    it('leaves out deleted patterns, other accounts and vectors of another model', async () => {
      const category = `excl-${++slugCounter}`;
      const kept = await create({ title: 'Outbox', description: 'transactional outbox for events', category });
      const deleted = await create({ title: 'Outbox too', description: 'transactional outbox', category });
      await req().delete(`/v1/patterns/${deleted.body.id}`).set(auth());
      const stale = await create({ title: 'Outbox again', description: 'transactional outbox', category });
      await t.ctx.db.knex('patterns').where({ id: stale.body.id }).update({ embedding_model: 'some-older-model' });
      const other = await createAccount(t.ctx);
      await create({ title: 'Outbox', description: 'transactional outbox for events', category }, other.key);
      const res = await search({ query: 'transactional outbox', category, limit: 10 });
      expect(res.body.data.map((d: { pattern: { id: string } }) => d.pattern.id)).toEqual([kept.body.id]);
    });

    it.each([
      ['a missing query', {}, 'query'],
      ['a whitespace query', { query: ' ' }, 'query'],
      ['a 10,001-character query', { query: 'q'.repeat(10_001) }, 'query'],
      ['limit 0', { query: 'q', limit: 0 }, 'limit'],
      ['limit 101', { query: 'q', limit: 101 }, 'limit'],
      ['a 101-character category', { query: 'q', category: 'c'.repeat(101) }, 'category'],
    ])('rejects %s with 422 naming the field', async (_label, body, field) => {
      expect(invalid(await search(body))).toContain(field);
    });

    it('needs read scope only', async () => {
      expect((await search({ query: 'anything' }, await acct.keyWith(['read']))).status).toBe(200);
      expectError(await search({ query: 'anything' }, await acct.keyWith(['write'])), 403, 'authorization_error');
    });
  });

  describe('adoption', () => {
    it('adopts idempotently per project, returning the updated pattern', async () => {
      const [alpha, beta] = [await project('alpha'), await project('beta')];
      const p = await create({ title: 'Retry with backoff', description: 'exponential backoff with jitter', category: 'resilience' });
      const first = await adopt(p.body.id, alpha);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ ...p.body, adoption_count: 1, updated_at: expect.stringMatching(ISO) });
      const again = await adopt(p.body.id, alpha);
      expect(again.body.adoption_count).toBe(1);
      expect(again.body.updated_at).toBe(first.body.updated_at);
      expect((await adopt(p.body.id, beta)).body.adoption_count).toBe(2);
      expect(await adoptionRows(p.body.id)).toBe(2);
    });

    it('un-adopts with 204; un-adopting what was never adopted is 404', async () => {
      const [alpha, gamma] = [await project('alpha'), await project('gamma')];
      const p = await create({ title: 'Idempotency keys', description: 'dedupe retried writes' });
      await adopt(p.body.id, alpha);
      const res = await unadopt(p.body.id, alpha);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect((await get(p.body.id)).body.adoption_count).toBe(0);
      expectError(await unadopt(p.body.id, alpha), 404, 'not_found');
      expectError(await unadopt(p.body.id, gamma), 404, 'not_found');
      expectError(await unadopt(p.body.id, 'no-such-project'), 404, 'not_found');
      expect((await get(p.body.id)).body.adoption_count).toBe(0);
    });

    it('answers 404 for unknown, deleted or foreign patterns; an unregistered project is created', async () => {
      const alpha = await project('alpha');
      const p = await create({ title: 'p', description: 'd' });
      const fresh = await create({ title: 'q', description: 'd' });
      expect((await adopt(fresh.body.id, 'no-such-project')).body.adoption_count).toBe(1);
      const other = await createAccount(t.ctx);
      const theirProject = await project('theirs', other.key);
      expect((await adopt(fresh.body.id, theirProject)).body.adoption_count).toBe(2);
      const theirPattern = await create({ title: 'Theirs', description: 't' }, other.key);
      expectError(await adopt(theirPattern.body.id, alpha), 404, 'not_found');
      expect((await get(theirPattern.body.id, other.key)).body.adoption_count).toBe(0);
      expectError(await adopt(MISSING, alpha), 404, 'not_found');
      expectError(await unadopt(MISSING, alpha), 404, 'not_found');
      const gone = await create({ title: 'gone', description: 'd' });
      await req().delete(`/v1/patterns/${gone.body.id}`).set(auth());
      expectError(await adopt(gone.body.id, alpha), 404, 'not_found');
      expect((await get(p.body.id)).body.adoption_count).toBe(0);
    });

    it.each([
      ['an empty project', ''],
      ['a 101-character project', 'p'.repeat(101)],
      ['a project out of form', 'Not_A_Slug'],
    ])('rejects %s with 422 on project', async (_label, slug) => {
      const p = await create({ title: 'p', description: 'd' });
      expect(new Set(invalid(await adopt(p.body.id, slug)))).toEqual(new Set(['project']));
      expect(new Set(invalid(await unadopt(p.body.id, encodeURIComponent(slug))))).toEqual(new Set(['project']));
    });

    it('accepts a 100-character project slug; requires project on un-adopt', async () => {
      const slug = 'q'.repeat(100);
      await req().post('/v1/projects').set(auth()).send({ name: 'long', slug });
      const p = await create({ title: 'p', description: 'd' });
      expect((await adopt(p.body.id, slug)).body.adoption_count).toBe(1);
      expect(invalid(await adopt(p.body.id, undefined as unknown as string))).toEqual(['project']);
      expect(invalid(await req().delete(`/v1/patterns/${p.body.id}/adopt`).set(auth()))).toEqual(['project']);
    });

    it('needs write scope to adopt and to un-adopt', async () => {
      const alpha = await project('alpha');
      const p = await create({ title: 'p', description: 'd' });
      const readOnly = await acct.keyWith(['read']);
      expect(expectError(await adopt(p.body.id, alpha, readOnly), 403, 'authorization_error').message).toBe('Insufficient scope. Required: write');
      await adopt(p.body.id, alpha);
      expectError(await unadopt(p.body.id, alpha, readOnly), 403, 'authorization_error');
      expect((await unadopt(p.body.id, alpha, await acct.keyWith(['write']))).status).toBe(204);
    });

    it('keeps adoption_count exact under 20 parallel adopts of one project and of several', async () => {
      const alpha = await project('alpha');
      const p = await create({ title: 'Same project race', description: 'c' });
      const same = await Promise.all(Array.from({ length: 20 }, () => adopt(p.body.id, alpha)));
      expect(same.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect((await get(p.body.id)).body.adoption_count).toBe(1);

      const projects = [await project('r'), await project('r'), await project('r'), await project('r')];
      const q = await create({ title: 'Many projects race', description: 'c' });
      await Promise.all(Array.from({ length: 20 }, (_, i) => adopt(q.body.id, projects[i % 4]!)));
      expect((await get(q.body.id)).body.adoption_count).toBe(4);
      expect(await adoptionRows(q.body.id)).toBe(4);
    });

    it('keeps adoption_count exact under parallel adopts and un-adopts mixed', async () => {
      const projects = [await project('m'), await project('m'), await project('m'), await project('m')];
      const p = await create({ title: 'Mixed race', description: 'c' });
      for (const slug of projects.slice(0, 2)) await adopt(p.body.id, slug);
      // Projects 0-1 are un-adopted (once succeeds, the rest 404) while 2-3 are adopted, all at once.
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? unadopt(p.body.id, projects[(i / 2) % 2]!) : adopt(p.body.id, projects[2 + (((i - 1) / 2) % 2)]!))),
      );
      const unadopts = results.filter((_, i) => i % 2 === 0).map((r) => r.status);
      expect(unadopts.filter((s) => s === 204)).toHaveLength(2);
      expect(unadopts.filter((s) => s === 404)).toHaveLength(8);
      expect((await get(p.body.id)).body.adoption_count).toBe(2);
      expect(await adoptionRows(p.body.id)).toBe(2);
    });

    it('stops counting a deleted project; its slug, reused, adopts afresh', async () => {
      const [alpha, beta] = [await project('alpha'), await project('beta')];
      const p = await create({ title: 'Survives its adopters', description: 'd' });
      await adopt(p.body.id, alpha);
      await adopt(p.body.id, beta);
      const betaRow = await t.ctx.db.knex('projects').where({ account_id: acct.accountId, slug: beta }).whereNull('deleted_at').first();
      await req().delete(`/v1/projects/${betaRow.id}`).set(auth());
      expect((await get(p.body.id)).body.adoption_count).toBe(1);
      expectError(await unadopt(p.body.id, beta), 404, 'not_found');
      await req().post('/v1/projects').set(auth()).send({ name: 'beta again', slug: beta });
      expectError(await unadopt(p.body.id, beta), 404, 'not_found');
      expect((await req().get(`/v1/projects/${beta}/context`).set(auth())).body.patterns).toEqual([]);
      expect((await adopt(p.body.id, beta)).body.adoption_count).toBe(2);
    });

    it('keeps adoption_count exact when a project is deleted while it adopts', async () => {
      const slugs = [await project('del-race'), await project('del-race'), await project('del-race')];
      const patterns = [await create({ title: 'p1', description: 'd' }), await create({ title: 'p2', description: 'd' })];
      const ids = new Map<string, string>();
      for (const slug of slugs) ids.set(slug, (await t.ctx.db.knex('projects').where({ account_id: acct.accountId, slug }).whereNull('deleted_at').first()).id);
      await Promise.all([
        ...slugs.flatMap((slug) => patterns.map((p) => adopt(p.body.id, slug))),
        req().delete(`/v1/projects/${ids.get(slugs[0]!)}`).set(auth()),
        req().delete(`/v1/projects/${ids.get(slugs[1]!)}`).set(auth()),
      ]);
      for (const p of patterns) {
        const live = Number(
          (await t.ctx.db
            .knex('pattern_adoptions as a')
            .join('projects as pr', function joinProjects() {
              this.on('pr.account_id', 'a.account_id').andOn('pr.id', 'a.project_id');
            })
            .where('a.pattern_id', p.body.id)
            .whereNull('pr.deleted_at')
            .count('* as n')
            .first())!.n,
        );
        // An adopt that lost the race to a delete re-creates the project of that slug (docs/clients.md, "Names instead of ids"):
        // the count must match the live adoptions whichever way each race went.
        expect(live).toBeGreaterThanOrEqual(1);
        expect((await get(p.body.id)).body.adoption_count).toBe(live);
      }
    });
  });

  describe('DELETE /v1/patterns/{id}', () => {
    it('soft-deletes: 204, then 404 everywhere', async () => {
      const alpha = await project('alpha');
      const p = await create({ title: 'Doomed', description: 'd', category: 'doomed-category' });
      await adopt(p.body.id, alpha);
      const res = await req().delete(`/v1/patterns/${p.body.id}`).set(auth());
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectError(await get(p.body.id), 404, 'not_found');
      expectError(await req().delete(`/v1/patterns/${p.body.id}`).set(auth()), 404, 'not_found');
      expectError(await unadopt(p.body.id, alpha), 404, 'not_found');
      expect((await req().get('/v1/patterns?category=doomed-category').set(auth())).body.total_count).toBe(0);
      expect((await search({ query: 'Doomed', category: 'doomed-category' })).body.total).toBe(0);
      expect((await req().get(`/v1/projects/${alpha}/context`).set(auth())).body.patterns).toEqual([]);
    });

    it("answers 404 for another account's pattern; needs delete scope", async () => {
      const other = await createAccount(t.ctx);
      const theirs = await create({ title: 'Theirs', description: 't' }, other.key);
      expectError(await req().delete(`/v1/patterns/${theirs.body.id}`).set(auth()), 404, 'not_found');
      expect((await get(theirs.body.id, other.key)).status).toBe(200);
      const p = await create({ title: 'Protected', description: 'p' });
      const res = await req().delete(`/v1/patterns/${p.body.id}`).set(bearer(await acct.keyWith(['read', 'write'])));
      expect(expectError(res, 403, 'authorization_error').message).toBe('Insufficient scope. Required: delete');
      expect((await get(p.body.id)).status).toBe(200);
    });
  });
});
