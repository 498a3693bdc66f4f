import supertest from 'supertest';
import type { Server } from 'node:http';
import { createHttpServer } from '../../../src/http-server';
import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

type Hit = { memory: { id: string; content: string }; score: number };

/** docs/clients.md: lenient input, aliases, search narrowing and names instead of ids. */
describe('lenient input for existing clients', () => {
  let t: TestApp;
  let acct: TestAccount;
  const ids: Record<string, string> = {};
  const req = () => t.request();
  const search = (body: object, path = '/v1/memories/search') => req().post(path).set(bearer(acct.key)).send(body);
  const contents = (res: { body: { data: Hit[] } }) => res.body.data.map((d) => d.memory.content);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
    const session = await req().post('/v1/sessions').set(bearer(acct.key)).send({ agent_id: 'lenient' });
    ids.session = session.body.id;
    const seed: Array<[string, object]> = [
      ['pg', { content: 'PostgreSQL vacuum settings tuned for the analytics database', project: 'analytics' }],
      ['redis', { content: 'Redis cache eviction policy set to allkeys-lru' }],
      ['inSession', { content: 'PostgreSQL replica lag alert raised during this conversation', session_id: ids.session }],
    ];
    for (const [name, body] of seed) {
      const res = await req().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'lenient', ...body });
      expect(res.status).toBe(201);
      ids[name] = res.body.id;
    }
  });
  afterAll(() => t.close());

  describe('unknown members and parameters', () => {
    it('accepts and ignores unknown body members on create, and stores none of them', async () => {
      const res = await req()
        .post('/v1/memories')
        .set(bearer(acct.key))
        .send({ content: 'Unknown members are ignored', agent_id: 'lenient', user_id: 'u-1', scope: 'long-term', made_up: { a: 1 } });
      expect(res.status).toBe(201);
      for (const member of ['user_id', 'scope', 'made_up']) expect(res.body).not.toHaveProperty(member);
      const row = await t.ctx.db.knex('memories').where({ id: res.body.id }).first();
      expect(row.metadata).toEqual({});
    });

    it('accepts unknown query parameters on lists', async () => {
      const res = await req().get('/v1/memories?agent_id=lenient&user_id=u-1&scope=all&include_embeddings=true').set(bearer(acct.key));
      expect(res.status).toBe(200);
      for (const item of res.body.data) expect(item).not.toHaveProperty('embedding');
    });

    it('accepts unknown members on agent, entity and project creates', async () => {
      expect((await req().post('/v1/agents').set(bearer(acct.key)).send({ name: 'with-extra', color: 'blue' })).status).toBe(201);
      expect((await req().post('/v1/entities').set(bearer(acct.key)).send({ name: 'Ada', type: 'person', agent_id: 'main' })).status).toBe(201);
      expect((await req().post('/v1/projects').set(bearer(acct.key)).send({ name: 'X', slug: 'with-extra', owner: 'me' })).status).toBe(201);
    });

    it('still answers 422 naming a known member of the wrong type or out of range', async () => {
      const res = await search({ query: 'x', limit: 'many', threshold: 2, extra: true });
      expect(expectError(res, 422, 'validation_error').details!.map((d) => d.field).sort()).toEqual(['limit', 'threshold']);
      const create = await req().post('/v1/memories').set(bearer(acct.key)).send({ content: 42, agent_id: 'lenient', unknown: 1 });
      expect(expectError(create, 422, 'validation_error').details!.map((d) => d.field)).toEqual(['content']);
    });

    it('an update made only of unknown members changes nothing and says so', async () => {
      const res = await req().patch(`/v1/memories/${ids.redis}`).set(bearer(acct.key)).send({ colour: 'red' });
      expectError(res, 422, 'validation_error');
    });
  });

  describe('null means absent', () => {
    it('takes null optionals on create as absent', async () => {
      const res = await req()
        .post('/v1/memories')
        .set(bearer(acct.key))
        .send({ content: 'Nulls are absent', agent_id: 'lenient', metadata: null, user_id: null, session_id: null, tier: null });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ metadata: {}, session_id: null, tier: 'warm' });
    });

    it('keeps the memory content when an update sends content: null', async () => {
      const res = await req().patch(`/v1/memories/${ids.redis}`).set(bearer(acct.key)).send({ content: null, metadata: { k: 'v' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ content: 'Redis cache eviction policy set to allkeys-lru', metadata: { k: 'v' } });
    });

    it('keeps nulls inside metadata, which is user data', async () => {
      const res = await req().post('/v1/memories').set(bearer(acct.key)).send({ content: 'Null inside metadata', agent_id: 'lenient', metadata: { gone: null } });
      expect(res.body.metadata).toEqual({ gone: null });
    });

    it('a null required member is missing: 422 naming it', async () => {
      expect(expectError(await search({ query: null }), 422, 'validation_error').details).toEqual([{ field: 'query', message: 'query is required' }]);
    });

    it('creates an agent from id when name is null (PY sends both)', async () => {
      const res = await req().post('/v1/agents').set(bearer(acct.key)).send({ id: 'py-agent', name: null, description: null, metadata: null });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: 'py-agent', description: null, metadata: {} });
      expect(res.body.id).not.toBe('py-agent');
    });
  });

  describe('search aliases and narrowing', () => {
    it('honours threshold as min_score and echoes it in meta.threshold', async () => {
      const all = await search({ query: 'PostgreSQL vacuum analytics database', agent_id: 'lenient', limit: 100 });
      const top = all.body.data[0].score as number;
      const res = await search({ query: 'PostgreSQL vacuum analytics database', agent_id: 'lenient', limit: 100, threshold: top });
      expect(res.body.meta.threshold).toBe(top);
      expect(res.body.data.every((d: Hit) => d.score >= top)).toBe(true);
      expect(res.body.data.length).toBeLessThan(all.body.data.length);
    });

    it('lets min_score win when both are sent', async () => {
      const res = await search({ query: 'PostgreSQL vacuum', agent_id: 'lenient', threshold: 0.99, min_score: 0 });
      expect(res.body.meta.threshold).toBe(0);
      expect(res.body.data.length).toBeGreaterThan(0);
    });

    it('filters by project slug; an unknown slug matches nothing', async () => {
      expect(contents(await search({ query: 'PostgreSQL', project: 'analytics' }))).toEqual([
        'PostgreSQL vacuum settings tuned for the analytics database',
      ]);
      const none = await search({ query: 'PostgreSQL', project: 'never-registered' });
      expect(none.status).toBe(200);
      expect(none.body.data).toEqual([]);
    });

    it('takes scope and session_id from the query string; the body wins', async () => {
      const session = await search({ query: 'PostgreSQL', limit: 100 }, `/v1/memories/search?scope=session&session_id=${ids.session}&q=PostgreSQL&limit=3`);
      expect(contents(session)).toEqual(['PostgreSQL replica lag alert raised during this conversation']);
      const longTerm = await search({ query: 'PostgreSQL', limit: 100 }, '/v1/memories/search?scope=long-term');
      expect(contents(longTerm)).toContain('PostgreSQL vacuum settings tuned for the analytics database');
      expect(contents(longTerm)).not.toContain('PostgreSQL replica lag alert raised during this conversation');
      const bodyWins = await search({ query: 'PostgreSQL', limit: 100, scope: 'all' }, '/v1/memories/search?scope=session');
      expect(bodyWins.body.data.length).toBeGreaterThanOrEqual(2);
    });

    it('a session_id that is not a UUID matches nothing instead of failing', async () => {
      const res = await search({ query: 'PostgreSQL' }, '/v1/memories/search?scope=session&session_id=agent:main:conversation-7');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
      const inBody = await search({ query: 'PostgreSQL', session_id: 'not-a-uuid' });
      expect(inBody.status).toBe(200);
      expect(inBody.body.data).toEqual([]);
    });

    it('answers a spec-conformant search with exactly the spec members (plus additive copies)', async () => {
      const res = await search({ query: 'Redis cache eviction', agent_id: 'lenient', limit: 1 });
      expect(Object.keys(res.body).sort()).toEqual(['data', 'meta', 'object', 'query']);
      expect(res.body.meta).toEqual({ recalled_count: 1, total_evaluated: expect.any(Number), threshold: 0, top_scores: [res.body.data[0].score] });
      const item = res.body.data[0];
      expect(item.memory).toEqual({
        object: 'memory',
        id: ids.redis,
        content: 'Redis cache eviction policy set to allkeys-lru',
        agent_id: expect.any(String),
        metadata: expect.any(Object),
        entities: expect.any(Array),
        memory_type: expect.any(String),
        importance: 0.5,
        tier: 'warm',
        archived: false,
        created_at: expect.any(Number),
        updated_at: expect.any(Number),
        // Additive (docs/clients.md): how many versions the memory has had.
        version: expect.any(Number),
      });
      expect(item.score).toBeGreaterThan(0);
      expect(item.score).toBeLessThanOrEqual(1);
    });
  });

  describe('context build aliases', () => {
    it('clamps max_memories to 50 instead of refusing it', async () => {
      const res = await req().post('/v2/context/build').set(bearer(acct.key)).send({ query: 'PostgreSQL', max_memories: 100, threshold: 0, llm_api_url: 'http://x' });
      expect(res.status).toBe(200);
      expect(res.body.memories_used).toBeGreaterThan(0);
    });

    it('limit wins over max_memories; a limit above 50 is still 422', async () => {
      const res = await req().post('/v2/context/build').set(bearer(acct.key)).send({ query: 'PostgreSQL', max_memories: 50, limit: 1, threshold: 0 });
      expect(res.body.memories_used).toBe(1);
      const bad = await req().post('/v2/context/build').set(bearer(acct.key)).send({ query: 'PostgreSQL', limit: 51 });
      expect(expectError(bad, 422, 'validation_error').details!.map((d) => d.field)).toEqual(['limit']);
    });

    it('treats agent_id: null as all agents', async () => {
      const res = await req().post('/v2/context/build').set(bearer(acct.key)).send({ query: 'Redis cache', agent_id: null, threshold: 0 });
      expect(res.status).toBe(200);
      expect(res.body.memories_used).toBeGreaterThan(0);
    });
  });

  describe('batch defaults', () => {
    it('applies a top-level agent_id to items that carry none', async () => {
      const res = await req()
        .post('/v1/memories/batch')
        .set(bearer(acct.key))
        .send({ agent_id: 'batch-default', memories: [{ content: 'first' }, { content: 'second', agent_id: 'explicit-agent' }] });
      expect(res.status).toBe(200);
      const rows = await t.ctx.db
        .knex('memories as m')
        .join('agents as a', (on) => on.on('a.account_id', 'm.account_id').andOn('a.id', 'm.agent_id'))
        .where('m.account_id', acct.accountId)
        .whereIn('m.id', res.body.results.map((r: { memory_id: string }) => r.memory_id))
        .select('m.content', 'a.name');
      expect(Object.fromEntries(rows.map((r: { content: string; name: string }) => [r.content, r.name]))).toEqual({
        first: 'batch-default',
        second: 'explicit-agent',
      });
    });
  });

  describe('decision list aliases', () => {
    it('takes project for project_slug and comma-separated tags as any-of', async () => {
      const make = (title: string, tags: string[], project_slug: string) =>
        req().post('/v1/decisions').set(bearer(acct.key)).send({ title, rationale: 'r', tags, project_slug });
      await make('Use JWT', ['auth'], 'tags-proj');
      await make('Version the API', ['api'], 'tags-proj');
      await make('Tabs', ['style'], 'tags-proj');
      await make('Elsewhere', ['auth'], 'other-proj');
      const res = await req().get('/v1/decisions?project=tags-proj&tags=auth,%20api').set(bearer(acct.key));
      expect(res.status).toBe(200);
      expect(res.body.data.map((d: { title: string }) => d.title).sort()).toEqual(['Use JWT', 'Version the API']);
      const tooMany = await req().get(`/v1/decisions?tags=${Array.from({ length: 21 }, (_, i) => `t${i}`).join(',')}`).set(bearer(acct.key));
      expect(expectError(tooMany, 422, 'validation_error').details!.map((d) => d.field)).toEqual(['tags']);
    });
  });

  describe('unregistered project slugs', () => {
    it('a write naming a new slug creates the project; a read naming one matches nothing', async () => {
      const res = await req().post('/v1/memories').set(bearer(acct.key)).send({ content: 'Lives in a new project', agent_id: 'lenient', project: 'brand-new' });
      expect(res.status).toBe(201);
      const project = await req().get('/v1/projects/brand-new').set(bearer(acct.key));
      expect(project.status).toBe(200);
      expect(project.body).toMatchObject({ slug: 'brand-new', name: 'brand-new', memory_count: 1 });
      expect(res.body.project_id).toBe(project.body.id);
      const decision = await req().post('/v1/decisions').set(bearer(acct.key)).send({ title: 't', rationale: 'r', project_slug: 'decided-here' });
      expect(decision.status).toBe(201);
      expect((await req().get('/v1/projects/decided-here').set(bearer(acct.key))).status).toBe(200);
    });

    it('a project that is not a slug is 422 naming project', async () => {
      const res = await req().post('/v1/memories').set(bearer(acct.key)).send({ content: 'x', agent_id: 'lenient', project: 'Not A Slug' });
      expect(expectError(res, 422, 'validation_error').details!.map((d) => d.field)).toEqual(['project']);
    });
  });

  describe('headers and URLs', () => {
    it('accepts Content-Type: application/json on body-less GET and DELETE', async () => {
      const get = await req().get(`/v1/memories/${ids.pg}`).set(bearer(acct.key)).set('Content-Type', 'application/json');
      expect(get.status).toBe(200);
      const doomed = await req().post('/v1/memories').set(bearer(acct.key)).send({ content: 'to delete', agent_id: 'lenient' });
      const del = await req().delete(`/v1/memories/${doomed.body.id}`).set(bearer(acct.key)).set('Content-Type', 'application/json');
      expect(del.status).toBe(204);
    });

    describe('on the API server', () => {
      let server: Server;
      beforeAll(async () => {
        server = createHttpServer(t.app);
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      });
      afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

      it('serves a search whose URL carries 20 KB of query text', async () => {
        const q = encodeURIComponent('PostgreSQL vacuum '.repeat(1_200));
        expect(q.length).toBeGreaterThan(20_000);
        const res = await supertest(server)
          .post(`/v1/memories/search?q=${q}&limit=5&threshold=0.3`)
          .set(bearer(acct.key))
          .send({ query: 'PostgreSQL vacuum', agent_id: 'lenient' });
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeGreaterThan(0);
      });
    });
  });
});
