import { deleteMemoryRow, insertMemory, bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const MISSING = '00000000-0000-4000-8000-000000000000';
/** An object of exactly `bytes` bytes when serialized: {"blob":"xxx…"} is 11 bytes plus the x's. */
const objectOf = (bytes: number) => ({ blob: 'x'.repeat(bytes - 11) });

describe('projects', () => {
  let t: TestApp;
  let acct: TestAccount;
  let slugCounter = 0;
  /** A slug no other test uses. */
  const freshSlug = (label = 'p') => `${label}-${++slugCounter}`;
  const req = () => t.request();
  const auth = () => bearer(acct.key);
  const create = (body: object, key = acct.key) => req().post('/v1/projects').set(bearer(key)).send(body);
  const patch = (id: string, body: object, key = acct.key) => req().patch(`/v1/projects/${id}`).set(bearer(key)).send(body);
  const invalid = (res: Parameters<typeof expectError>[0]) => expectError(res, 422, 'validation_error').details!.map((d) => d.field);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  describe('POST /v1/projects', () => {
    it('creates a project with every field', async () => {
      const res = await create({ name: 'Apollo', slug: 'apollo', description: 'Moon', stack: { languages: ['ts'] }, repo_url: 'https://git.example/apollo', metadata: { k: 1 } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        slug: 'apollo',
        name: 'Apollo',
        description: 'Moon',
        stack: { languages: ['ts'] },
        repo_url: 'https://git.example/apollo',
        metadata: { k: 1 },
        memory_count: 0,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
    });

    it('defaults optional text to null and stack and metadata to {}', async () => {
      expect((await create({ name: 'Bare', slug: 'bare' })).body).toMatchObject({ description: null, repo_url: null, stack: {}, metadata: {} });
    });

    it('takes repo_url as any string up to 500 characters (the spec asks no URL form)', async () => {
      expect((await create({ name: 'x', slug: freshSlug(), repo_url: 'git@host:team/repo.git' })).body.repo_url).toBe('git@host:team/repo.git');
    });

    it('accepts the longest valid values and the shortest slug', async () => {
      const res = await create({
        name: 'n'.repeat(255),
        slug: 's'.repeat(100),
        description: 'd'.repeat(5_000),
        repo_url: 'u'.repeat(500),
        stack: objectOf(10_240),
        metadata: objectOf(10_240),
      });
      expect(res.status).toBe(201);
      expect((await create({ name: 'x', slug: 'a' })).status).toBe(201);
      expect((await create({ name: 'x', slug: '0-9-z' })).status).toBe(201);
    });

    it.each([
      ['a missing name', { slug: 'ok-1' }, 'name'],
      ['an empty name', { name: '', slug: 'ok-1' }, 'name'],
      ['a whitespace name', { name: '   ', slug: 'ok-1' }, 'name'],
      ['a 256-character name', { name: 'n'.repeat(256), slug: 'ok-1' }, 'name'],
      ['a missing slug', { name: 'x' }, 'slug'],
      ['an empty slug', { name: 'x', slug: '' }, 'slug'],
      ['an uppercase slug', { name: 'x', slug: 'Upper' }, 'slug'],
      ['a slug with a space', { name: 'x', slug: 'has space' }, 'slug'],
      ['a slug with an underscore', { name: 'x', slug: 'under_score' }, 'slug'],
      ['a slug with an accent', { name: 'x', slug: 'café' }, 'slug'],
      ['a 101-character slug', { name: 'x', slug: 's'.repeat(101) }, 'slug'],
      ['a 5,001-character description', { name: 'x', slug: 'ok-1', description: 'd'.repeat(5_001) }, 'description'],
      ['a 501-character repo_url', { name: 'x', slug: 'ok-1', repo_url: 'u'.repeat(501) }, 'repo_url'],
      ['a stack of 10,241 bytes', { name: 'x', slug: 'ok-1', stack: objectOf(10_241) }, 'stack'],
      ['a stack that is an array', { name: 'x', slug: 'ok-1', stack: ['ts'] }, 'stack'],
      ['metadata of 10,241 bytes', { name: 'x', slug: 'ok-1', metadata: objectOf(10_241) }, 'metadata'],
    ])('rejects %s with 422 naming the field', async (_label, body, field) => {
      expect(invalid(await create(body))).toContain(field);
    });

    it('answers 409 for a live duplicate slug; a deleted project frees it; other accounts are separate', async () => {
      const first = await create({ name: 'Dup', slug: 'dup' });
      const res = await create({ name: 'Dup 2', slug: 'dup' });
      expect(expectError(res, 409, 'conflict').message).toContain('dup');
      await req().delete(`/v1/projects/${first.body.id}`).set(auth());
      const again = await create({ name: 'Dup 3', slug: 'dup' });
      expect(again.status).toBe(201);
      expect(again.body.id).not.toBe(first.body.id);
      const other = await createAccount(t.ctx);
      expect((await create({ name: 'Theirs', slug: 'dup' }, other.key)).status).toBe(201);
    });

    it('lets exactly one of 10 parallel creates with one slug win; the rest get 409', async () => {
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create({ name: `Racer ${i}`, slug: 'race-slug' })));
      expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
      expect(await t.ctx.db.knex('projects').where({ account_id: acct.accountId, slug: 'race-slug' })).toHaveLength(1);
    });

    it('needs write scope', async () => {
      expect(expectError(await create({ name: 'x', slug: freshSlug() }, await acct.keyWith(['read'])), 403, 'authorization_error').message).toBe(
        'Insufficient scope. Required: write',
      );
    });
  });

  describe('POST /v1/projects for a slug a write created', () => {
    /** A project that exists only because a memory named its slug. */
    const implicitProject = async (slug: string) => {
      const memory = await req().post('/v1/memories').set(auth()).send({ content: `Work on ${slug}`, agent_id: 'registrar', project: slug });
      expect(memory.status).toBe(201);
      const got = await req().get(`/v1/projects/${slug}`).set(auth());
      expect(got.body).toMatchObject({ slug, name: slug, description: null, memory_count: 1 });
      return got.body as { id: string; created_at: string; updated_at: string };
    };

    it('completes the project (201): same id, creation time and memories; the given name, description, stack and repo URL', async () => {
      const slug = freshSlug('implicit');
      const before = await implicitProject(slug);
      await patch(before.id, { metadata: { kept: true } });
      const res = await create({ slug, name: 'Registered', description: 'Now described', stack: { languages: ['go'] }, repo_url: 'https://git.example/r', metadata: { added: 1 } });
      expect(res.status).toBe(201);
      const expected = {
        id: before.id,
        slug,
        name: 'Registered',
        description: 'Now described',
        stack: { languages: ['go'] },
        repo_url: 'https://git.example/r',
        metadata: { kept: true, added: 1 },
        memory_count: 1,
        created_at: before.created_at,
        updated_at: expect.stringMatching(ISO),
      };
      expect(res.body).toEqual(expected);
      expect((await req().get(`/v1/projects/${before.id}`).set(auth())).body).toEqual(expected);
      const context = await req().get(`/v1/projects/${slug}/context`).set(auth());
      expect(context.body.project).toEqual({ id: before.id, slug, name: 'Registered', stack: { languages: ['go'] } });
      expect(context.body.memories).toHaveLength(1);
    });

    it('answers 409 to a second registration and keeps the first one’s fields', async () => {
      const slug = freshSlug('implicit');
      await implicitProject(slug);
      expect((await create({ slug, name: 'First' })).status).toBe(201);
      const again = await create({ slug, name: 'Second', description: 'would overwrite' });
      expect(expectError(again, 409, 'conflict').message).toBe(`A project with slug "${slug}" already exists`);
      expect((await req().get(`/v1/projects/${slug}`).set(auth())).body).toMatchObject({ name: 'First', description: null, memory_count: 1 });
    });

    it('stays registered when a later write names the slug again', async () => {
      const slug = freshSlug('implicit');
      await implicitProject(slug);
      expect((await create({ slug, name: 'Registered once' })).status).toBe(201);
      await req().post('/v1/decisions').set(auth()).send({ title: 't', rationale: 'r', project_slug: slug });
      expect((await create({ slug, name: 'Twice' })).status).toBe(409);
    });

    it('completes a project that a decision created', async () => {
      const viaDecision = freshSlug('decided');
      expect((await req().post('/v1/decisions').set(auth()).send({ title: 't', rationale: 'r', project_slug: viaDecision })).status).toBe(201);
      const res = await create({ slug: viaDecision, name: 'From a decision' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ slug: viaDecision, name: 'From a decision', memory_count: 0 });
    });

    it('lets exactly one of 10 parallel registrations of a written slug win; the rest get 409', async () => {
      const slug = freshSlug('implicit-race');
      const before = await implicitProject(slug);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create({ slug, name: `Racer ${i}` })));
      expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
      const rows = await t.ctx.db.knex('projects').where({ account_id: acct.accountId, slug });
      expect(rows).toHaveLength(1);
      expect(rows[0].id).toBe(before.id);
      expect(rows[0].name).toBe(results.find((r) => r.status === 201)!.body.name);
    });

    it('refuses an invalid registration with 422 and leaves the project unregistered', async () => {
      const slug = freshSlug('implicit');
      await implicitProject(slug);
      expect(invalid(await create({ slug, name: 'n'.repeat(256) }))).toEqual(['name']);
      expect((await req().get(`/v1/projects/${slug}`).set(auth())).body).toMatchObject({ name: slug });
      expect((await create({ slug, name: 'Valid now' })).status).toBe(201);
    });
  });

  describe('GET /v1/projects and /v1/projects/{id}', () => {
    it('gets a project with its exact count of live memories', async () => {
      const p = await create({ name: 'Counted', slug: freshSlug('counted') });
      await insertMemory(t.ctx, acct.accountId, { agentId: 'counter', content: 'one', projectId: p.body.id });
      await insertMemory(t.ctx, acct.accountId, { agentId: 'counter', content: 'two', projectId: p.body.id });
      const gone = await insertMemory(t.ctx, acct.accountId, { agentId: 'counter', content: 'gone', projectId: p.body.id });
      await deleteMemoryRow(t.ctx, acct.accountId, gone.id);
      const res = await req().get(`/v1/projects/${p.body.id}`).set(auth());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...p.body, memory_count: 2 });
    });

    it('counts memories written through the memories API by project slug or project_id', async () => {
      const slug = freshSlug('via-api');
      const p = await create({ name: 'Via API', slug });
      await req().post('/v1/memories').set(auth()).send({ agent_id: 'p', content: 'by slug', project: slug });
      await req().post('/v1/memories').set(auth()).send({ agent_id: 'p', content: 'by id', project_id: p.body.id });
      expect((await req().get(`/v1/projects/${p.body.id}`).set(auth())).body.memory_count).toBe(2);
    });

    it('lists live projects newest first with counts, paging by limit, offset and cursor', async () => {
      const other = await createAccount(t.ctx);
      const mine = [];
      for (let i = 0; i < 3; i++) mine.push((await create({ name: `L${i}`, slug: `list-${i}` }, other.key)).body);
      await insertMemory(t.ctx, other.accountId, { agentId: 'a', content: 'in L0', projectId: mine[0].id });
      const deleted = await create({ name: 'gone', slug: 'list-gone' }, other.key);
      await req().delete(`/v1/projects/${deleted.body.id}`).set(bearer(other.key));

      const all = await req().get('/v1/projects').set(bearer(other.key));
      expect(all.body).toMatchObject({ total_count: 3, has_more: false, next_cursor: null });
      expect(all.body).not.toHaveProperty('object');
      expect(all.body.data.map((p: { slug: string }) => p.slug)).toEqual(['list-2', 'list-1', 'list-0']);
      expect(all.body.data[2]).toEqual({ ...mine[0], memory_count: 1 });

      const first = await req().get('/v1/projects?limit=2').set(bearer(other.key));
      expect(first.body).toMatchObject({ total_count: 3, has_more: true, next_cursor: expect.any(String) });
      const next = await req().get(`/v1/projects?limit=2&cursor=${first.body.next_cursor}`).set(bearer(other.key));
      expect(next.body.data.map((p: { slug: string }) => p.slug)).toEqual(['list-0']);
      expect(next.body.has_more).toBe(false);
      expect((await req().get('/v1/projects?offset=1&limit=1').set(bearer(other.key))).body.data[0].slug).toBe('list-1');

      const fromMine = await req().get('/v1/projects?limit=100').set(auth());
      expect(fromMine.body.data.map((p: { id: string }) => p.id)).not.toContain(mine[0].id);
    });

    it.each([['limit=0'], ['limit=101'], ['offset=-1'], ['cursor=nonsense']])('rejects %s with 422', async (q) => {
      expectError(await req().get(`/v1/projects?${q}`).set(auth()), 422, 'validation_error');
    });

    it("answers 404 for an unknown id, an unknown slug, a segment out of slug form and another account's project", async () => {
      const p = await create({ name: 'x', slug: freshSlug('by-slug') });
      expectError(await req().get(`/v1/projects/${MISSING}`).set(auth()), 404, 'not_found');
      expectError(await req().get('/v1/projects/not-a-known-slug').set(auth()), 404, 'not_found');
      expectError(await req().get('/v1/projects/Not_A_Slug').set(auth()), 404, 'not_found');
      // A slug in the id's place names the project (docs/clients.md).
      expect((await req().get(`/v1/projects/${p.body.slug}`).set(auth())).body).toEqual(p.body);
      const other = await createAccount(t.ctx);
      const theirs = await create({ name: 'T', slug: 'theirs-only' }, other.key);
      expectError(await req().get(`/v1/projects/${theirs.body.id}`).set(auth()), 404, 'not_found');
    });

    it('needs read scope', async () => {
      const p = await create({ name: 'x', slug: freshSlug() });
      expect((await req().get(`/v1/projects/${p.body.id}`).set(bearer(await acct.keyWith(['read'])))).status).toBe(200);
      expectError(await req().get('/v1/projects').set(bearer(await acct.keyWith(['write']))), 403, 'authorization_error');
    });
  });

  describe('PATCH /v1/projects/{id}', () => {
    it('updates the given fields, replaces the stack and merges metadata', async () => {
      const p = await create({ name: 'Gemini', slug: freshSlug('gemini'), description: 'Two', stack: { languages: ['ts'] }, metadata: { a: 1, b: 1 } });
      const res = await patch(p.body.id, { name: 'Gemini II', stack: { databases: ['pg'] }, repo_url: 'https://x.example', metadata: { b: 2, c: 3 } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...p.body,
        name: 'Gemini II',
        stack: { databases: ['pg'] },
        repo_url: 'https://x.example',
        metadata: { a: 1, b: 2, c: 3 },
        updated_at: expect.stringMatching(ISO),
      });
      expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(p.body.updated_at));
      expect((await req().get(`/v1/projects/${p.body.id}`).set(auth())).body).toEqual(res.body);
    });

    it('accepts the longest values', async () => {
      const p = await create({ name: 'x', slug: freshSlug() });
      const res = await patch(p.body.id, { name: 'n'.repeat(255), description: 'd'.repeat(5_000), repo_url: 'u'.repeat(500), stack: objectOf(10_240) });
      expect(res.status).toBe(200);
    });

    it.each([
      ['an empty body', {}, ''],
      ['a slug (slugs are fixed)', { slug: 'renamed' }, 'slug'],
      ['an empty name', { name: '' }, 'name'],
      ['a 256-character name', { name: 'n'.repeat(256) }, 'name'],
      ['a 5,001-character description', { description: 'd'.repeat(5_001) }, 'description'],
      ['a 501-character repo_url', { repo_url: 'u'.repeat(501) }, 'repo_url'],
      ['a stack of 10,241 bytes', { stack: objectOf(10_241) }, 'stack'],
      ['metadata of 10,241 bytes', { metadata: objectOf(10_241) }, 'metadata'],
    ])('rejects %s with 422', async (_label, body, field) => {
      const p = await create({ name: 'x', slug: freshSlug() });
      expect(invalid(await patch(p.body.id, body))).toContain(field);
    });

    it('answers 404 for unknown, deleted and foreign projects; needs write scope', async () => {
      expectError(await patch(MISSING, { name: 'x' }), 404, 'not_found');
      const p = await create({ name: 'x', slug: freshSlug() });
      expectError(await patch(p.body.id, { name: 'y' }, await acct.keyWith(['read'])), 403, 'authorization_error');
      await req().delete(`/v1/projects/${p.body.id}`).set(auth());
      expectError(await patch(p.body.id, { name: 'y' }), 404, 'not_found');
      const other = await createAccount(t.ctx);
      const theirs = await create({ name: 'T', slug: 'theirs' }, other.key);
      expectError(await patch(theirs.body.id, { name: 'mine now' }), 404, 'not_found');
      expect((await req().get(`/v1/projects/${theirs.body.id}`).set(bearer(other.key))).body.name).toBe('T');
    });
  });

  describe('DELETE /v1/projects/{id}', () => {
    it('soft-deletes (204, then 404) and keeps the memories scoped to it', async () => {
      const p = await create({ name: 'Doomed', slug: freshSlug('doomed') });
      const m = await insertMemory(t.ctx, acct.accountId, { agentId: 'a', content: 'outlives the project', projectId: p.body.id });
      const res = await req().delete(`/v1/projects/${p.body.id}`).set(auth());
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectError(await req().get(`/v1/projects/${p.body.id}`).set(auth()), 404, 'not_found');
      expectError(await req().get(`/v1/projects/${p.body.slug}/context`).set(auth()), 404, 'not_found');
      expectError(await req().delete(`/v1/projects/${p.body.id}`).set(auth()), 404, 'not_found');
      expect((await t.ctx.db.knex('projects').where({ id: p.body.id }).first()).deleted_at).toBeInstanceOf(Date);
      expect(await t.ctx.db.knex('memories').where({ id: m.id }).first()).toMatchObject({ project_id: p.body.id, deleted_at: null });
      expect((await req().get(`/v1/memories/${m.id}`).set(auth())).body.project_id).toBe(p.body.id);
    });

    it("answers 404 for another account's project; needs delete scope", async () => {
      const other = await createAccount(t.ctx);
      const theirs = await create({ name: 'T', slug: 'keep-theirs' }, other.key);
      expectError(await req().delete(`/v1/projects/${theirs.body.id}`).set(auth()), 404, 'not_found');
      expect((await req().get(`/v1/projects/${theirs.body.id}`).set(bearer(other.key))).status).toBe(200);
      const p = await create({ name: 'x', slug: freshSlug() });
      const res = await req().delete(`/v1/projects/${p.body.id}`).set(bearer(await acct.keyWith(['read', 'write'])));
      expect(expectError(res, 403, 'authorization_error').message).toBe('Insufficient scope. Required: delete');
      expect((await req().get(`/v1/projects/${p.body.id}`).set(auth())).status).toBe(200);
    });
  });

  describe('GET /v1/projects/{slug}/context', () => {
    it('gives the project, its key memories, active decisions and adopted patterns', async () => {
      const p = await create({ name: 'Mercury', slug: 'mercury', stack: { databases: ['postgres'] }, description: 'not in the context' });
      const at = new Date('2026-02-01T10:00:00Z');
      const critical = await insertMemory(t.ctx, acct.accountId, { agentId: 'a', content: 'critical constraint', projectId: p.body.id, importance: 0.95, createdAt: at, memoryType: 'insight' });
      await insertMemory(t.ctx, acct.accountId, { agentId: 'a', content: 'minor note', projectId: p.body.id, importance: 0.2 });
      const active = await req().post('/v1/decisions').set(auth()).send({ title: 'Use pgvector', rationale: 'one database', project_slug: 'mercury' });
      const old = await req().post('/v1/decisions').set(auth()).send({ title: 'Old idea', rationale: 'x', project_slug: 'mercury' });
      const successor = await req().post(`/v1/decisions/${old.body.id}/supersede`).set(auth()).send({ title: 'New idea', rationale: 'y' });
      const pat = await req().post('/v1/patterns').set(auth()).send({ title: 'Result type', description: 'Return errors as values', category: 'errors' });
      await req().post(`/v1/patterns/${pat.body.id}/adopt`).set(auth()).send({ project: 'mercury' });
      await req().post('/v1/patterns').set(auth()).send({ title: 'Not adopted', description: 'nobody uses this' });

      const res = await req().get('/v1/projects/mercury/context').set(auth());
      expect(res.status).toBe(200);
      expect(res.body.project).toEqual({ id: p.body.id, slug: 'mercury', name: 'Mercury', stack: { databases: ['postgres'] } });
      expect(res.body.memories[0]).toEqual({ id: critical.id, content: 'critical constraint', memory_type: 'insight', importance: 0.95, created_at: at.getTime() / 1000 });
      expect(res.body.memories.map((m: { content: string }) => m.content)).toEqual(['critical constraint', 'minor note']);
      expect(res.body.decisions).toEqual([
        { id: successor.body.id, title: 'New idea', status: 'active' },
        { id: active.body.id, title: 'Use pgvector', status: 'active' },
      ]);
      expect(res.body.patterns).toEqual([{ id: pat.body.id, title: 'Result type', category: 'errors' }]);
      // The spec's members, plus the additive ones of docs/clients.md.
      expect(Object.keys(res.body).sort()).toEqual([
        'active_patterns', 'decisions', 'formatted', 'hot_memories', 'memories', 'patterns', 'project', 'recent_decisions',
      ]);
      expect(res.body.hot_memories.map((m: { content: string }) => m.content)).toEqual(['critical constraint']);
      expect(res.body.active_patterns).toEqual([{ id: pat.body.id, title: 'Result type', category: 'errors', description: expect.any(String) }]);
      expect(res.body.recent_decisions.every((d: { rationale: unknown }) => typeof d.rationale === 'string')).toBe(true);
      expect(res.body.formatted).toContain('critical constraint');
    });

    it('orders memories by importance, then newest; caps them at 20; leaves out archived, confidential, deleted and other projects’ memories', async () => {
      const slug = freshSlug('ctx-memories');
      const p = await create({ name: 'Ctx', slug });
      const elsewhere = await create({ name: 'Elsewhere', slug: freshSlug('elsewhere') });
      const base = Date.parse('2026-01-01T00:00:00Z');
      for (let i = 0; i < 22; i++) {
        await insertMemory(t.ctx, acct.accountId, { agentId: 'a', content: `routine ${i}`, projectId: p.body.id, importance: 0.5, createdAt: new Date(base + i * 1000) });
      }
      await insertMemory(t.ctx, acct.accountId, { agentId: 'a', content: 'top', projectId: p.body.id, importance: 0.9, createdAt: new Date(base) });
      await insertMemory(t.ctx, acct.accountId, { agentId: 'a', content: 'archived', projectId: p.body.id, importance: 1, archived: true });
      await insertMemory(t.ctx, acct.accountId, { agentId: 'a', content: 'confidential', projectId: p.body.id, importance: 1, visibility: 'confidential' });
      const gone = await insertMemory(t.ctx, acct.accountId, { agentId: 'a', content: 'deleted', projectId: p.body.id, importance: 1 });
      await deleteMemoryRow(t.ctx, acct.accountId, gone.id);
      await insertMemory(t.ctx, acct.accountId, { agentId: 'a', content: 'other project', projectId: elsewhere.body.id, importance: 1 });
      await insertMemory(t.ctx, acct.accountId, { agentId: 'a', content: 'no project', importance: 1 });

      const res = await req().get(`/v1/projects/${slug}/context`).set(auth());
      const contents = res.body.memories.map((m: { content: string }) => m.content);
      expect(contents).toEqual(['top', ...Array.from({ length: 19 }, (_, i) => `routine ${21 - i}`)]);
    });

    it('lists only active decisions with the project slug, and only live adopted patterns', async () => {
      const slug = freshSlug('ctx-decisions');
      await create({ name: 'Ctx', slug });
      const decide = async (title: string, extra: object = {}) =>
        (await req().post('/v1/decisions').set(auth()).send({ title, rationale: 'r', project_slug: slug, ...extra })).body;
      const kept = await decide('kept');
      await decide('experimental', { status: 'experimental' });
      const reverted = await decide('reverted');
      await req().patch(`/v1/decisions/${reverted.id}`).set(auth()).send({ status: 'reverted' });
      const deleted = await decide('deleted');
      await req().delete(`/v1/decisions/${deleted.id}`).set(auth());
      await req().post('/v1/decisions').set(auth()).send({ title: 'other project', rationale: 'r', project_slug: 'someplace-else' });
      const live = await req().post('/v1/patterns').set(auth()).send({ title: 'live', description: 'd', category: 'c' });
      const removed = await req().post('/v1/patterns').set(auth()).send({ title: 'deleted pattern', description: 'd' });
      const unadopted = await req().post('/v1/patterns').set(auth()).send({ title: 'unadopted', description: 'd' });
      for (const id of [live.body.id, removed.body.id, unadopted.body.id]) await req().post(`/v1/patterns/${id}/adopt`).set(auth()).send({ project: slug });
      await req().delete(`/v1/patterns/${removed.body.id}`).set(auth());
      await req().delete(`/v1/patterns/${unadopted.body.id}/adopt?project=${slug}`).set(auth());

      const res = await req().get(`/v1/projects/${slug}/context`).set(auth());
      expect(res.body.decisions).toEqual([{ id: kept.id, title: 'kept', status: 'active' }]);
      expect(res.body.patterns).toEqual([{ id: live.body.id, title: 'live', category: 'c' }]);
    });

    it('gives empty arrays for a project with nothing in it; needs read scope only', async () => {
      const slug = freshSlug('ctx-empty');
      await create({ name: 'Empty', slug });
      const res = await req().get(`/v1/projects/${slug}/context`).set(bearer(await acct.keyWith(['read'])));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ memories: [], decisions: [], patterns: [] });
      expectError(await req().get(`/v1/projects/${slug}/context`).set(bearer(await acct.keyWith(['write']))), 403, 'authorization_error');
    });

    it("answers 404 for an unknown slug, a slug out of form, a UUID in the slug's place and another account's slug", async () => {
      const p = await create({ name: 'x', slug: freshSlug('ctx-404') });
      expectError(await req().get('/v1/projects/nope-nope/context').set(auth()), 404, 'not_found');
      expectError(await req().get('/v1/projects/Not_A_Slug/context').set(auth()), 404, 'not_found');
      expectError(await req().get(`/v1/projects/${p.body.id}/context`).set(auth()), 404, 'not_found');
      const other = await createAccount(t.ctx);
      await create({ name: 'T', slug: 'their-context' }, other.key);
      expectError(await req().get('/v1/projects/their-context/context').set(auth()), 404, 'not_found');
    });
  });

  it("refuses another account's project as a memory's project_id", async () => {
    const other = await createAccount(t.ctx);
    const theirs = await create({ name: 'T', slug: 'not-yours' }, other.key);
    expectError(await req().post('/v1/memories').set(auth()).send({ agent_id: 'p', content: 'x', project_id: theirs.body.id }), 404, 'not_found');
  });
});
