import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

/** docs/clients.md, "Method and path variants": method and path variants reaching the spec's operations. */
describe('method and path variants of existing clients', () => {
  let t: TestApp;
  let acct: TestAccount;
  let other: TestAccount;
  const req = () => t.request();
  const auth = (key = acct.key) => bearer(key);
  const memory = async (content: string, key = acct.key) =>
    (await req().post('/v1/memories').set(auth(key)).send({ content, agent_id: 'variants' })).body as { id: string; content: string };

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
    other = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  describe('PUT /v1/memories/{id}', () => {
    it('updates like PATCH, with null meaning absent', async () => {
      const m = await memory('Original content');
      const res = await req().put(`/v1/memories/${m.id}`).set(auth()).send({ content: 'Replaced content', metadata: null });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ object: 'memory', id: m.id, content: 'Replaced content', metadata: {} });
      const viaPatch = await req().patch(`/v1/memories/${m.id}`).set(auth()).send({ metadata: { k: 1 } });
      expect(Object.keys(viaPatch.body).sort()).toEqual(Object.keys(res.body).sort());
    });

    it("is 404 for another account's memory, 403 without write scope, 422 naming a bad member", async () => {
      const theirs = await memory('theirs', other.key);
      expectError(await req().put(`/v1/memories/${theirs.id}`).set(auth()).send({ content: 'x' }), 404, 'not_found');
      const m = await memory('mine');
      expectError(await req().put(`/v1/memories/${m.id}`).set(auth(await acct.keyWith(['read']))).send({ content: 'x' }), 403, 'authorization_error');
      const bad = await req().put(`/v1/memories/${m.id}`).set(auth()).send({ content: '' });
      expect(expectError(bad, 422, 'validation_error').details!.map((d) => d.field)).toEqual(['content']);
    });
  });

  describe('agents by name', () => {
    it('gets, updates with PUT or PATCH, reads stats and deletes an agent named in the path', async () => {
      const created = (await req().post('/v1/agents').set(auth()).send({ name: 'my-agent' })).body;
      expect((await req().get('/v1/agents/my-agent').set(auth())).body).toMatchObject({ id: created.id, name: 'my-agent' });
      const put = await req().put('/v1/agents/my-agent').set(auth()).send({ name: null, description: 'described', metadata: null });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ id: created.id, name: 'my-agent', description: 'described' });
      const patch = await req().patch('/v1/agents/my-agent').set(auth()).send({ metadata: { team: 'a' } });
      expect(patch.body).toMatchObject({ id: created.id, metadata: { team: 'a' } });
      const putById = await req().put(`/v1/agents/${created.id}`).set(auth()).send({ description: 'by id' });
      expect(putById.body.description).toBe('by id');
      await req().post('/v1/memories').set(auth()).send({ content: 'a memory of my-agent', agent_id: 'my-agent' });
      const stats = await req().get('/v1/agents/my-agent/stats').set(auth());
      expect(stats.status).toBe(200);
      expect(stats.body).toMatchObject({ object: 'agent_stats', agent_id: created.id, total_memories: 1, memory_count: 1, data: { total_memories: 1 } });
      expect(typeof stats.body.data.last_updated).toBe('string');
      expect((await req().delete('/v1/agents/my-agent').set(auth())).status).toBe(204);
      expectError(await req().get(`/v1/agents/${created.id}`).set(auth()), 404, 'not_found');
    });

    it('finds an agent created with a caller-chosen id and another name by either, in paths and bodies', async () => {
      const created = await req().post('/v1/agents').set(auth()).send({ id: 'node-agent', name: 'Node Agent' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'Node Agent' });
      expect(created.body.id).not.toBe('node-agent');
      const m = await req().post('/v1/memories').set(auth()).send({ content: 'stored under the client id', agent_id: 'node-agent' });
      expect(m.body.agent_id).toBe(created.body.id);
      expect((await req().get('/v1/agents/node-agent').set(auth())).body.id).toBe(created.body.id);
      expect((await req().get('/v1/agents/node-agent/stats').set(auth())).body).toMatchObject({ agent_id: created.body.id, total_memories: 1 });
      const list = await req().get('/v1/memories?agent_id=node-agent').set(auth());
      expect(list.body.data.map((d: { id: string }) => d.id)).toEqual([m.body.id]);
      expectError(await req().post('/v1/agents').set(auth()).send({ id: 'node-agent', name: 'Another' }), 409, 'conflict');
      expectError(await req().get('/v1/agents/node-agent').set(auth(other.key)), 404, 'not_found');
    });

    it("is 404 for an unknown name and another account's agent name; scopes as the spec's routes", async () => {
      await req().post('/v1/agents').set(auth(other.key)).send({ name: 'their-agent' });
      expectError(await req().get('/v1/agents/their-agent').set(auth()), 404, 'not_found');
      expectError(await req().get('/v1/agents/their-agent/stats').set(auth()), 404, 'not_found');
      expectError(await req().put('/v1/agents/their-agent').set(auth()).send({ description: 'x' }), 404, 'not_found');
      expectError(await req().delete('/v1/agents/their-agent').set(auth()), 404, 'not_found');
      expect((await req().get('/v1/agents/their-agent').set(auth(other.key))).status).toBe(200);
      await req().post('/v1/agents').set(auth()).send({ name: 'scoped' });
      expectError(await req().put('/v1/agents/scoped').set(auth(await acct.keyWith(['read']))).send({ description: 'x' }), 403, 'authorization_error');
      expectError(await req().delete('/v1/agents/scoped').set(auth(await acct.keyWith(['read', 'write']))), 403, 'authorization_error');
      expectError(await req().get('/v1/agents/scoped').set(auth(await acct.keyWith(['write']))), 403, 'authorization_error');
    });
  });

  describe('PUT /v1/sessions/{id}/end', () => {
    it('ends a session, and ending it again answers 200 with a new summary; POST keeps its 409', async () => {
      const s = (await req().post('/v1/sessions').set(auth()).send({ agent_id: 'variants' })).body;
      const first = await req().put(`/v1/sessions/${s.id}/end`).set(auth()).send({});
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ id: s.id, status: 'ended', ended_at: expect.any(String) });
      const again = await req().put(`/v1/sessions/${s.id}/end`).set(auth()).send({ summary: 'second turn' });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ id: s.id, status: 'ended', ended_at: first.body.ended_at, summary: 'second turn' });
      expectError(await req().post(`/v1/sessions/${s.id}/end`).set(auth()).send({}), 409, 'conflict');
    });

    it("is 404 for another account's session and 403 without write scope", async () => {
      const theirs = (await req().post('/v1/sessions').set(auth(other.key)).send({})).body;
      expectError(await req().put(`/v1/sessions/${theirs.id}/end`).set(auth()).send({}), 404, 'not_found');
      const mine = (await req().post('/v1/sessions').set(auth()).send({})).body;
      expectError(await req().put(`/v1/sessions/${mine.id}/end`).set(auth(await acct.keyWith(['read']))).send({}), 403, 'authorization_error');
      const bad = await req().put(`/v1/sessions/${mine.id}/end`).set(auth()).send({ summary: 7 });
      expect(expectError(bad, 422, 'validation_error').details!.map((d) => d.field)).toEqual(['summary']);
    });
  });

  describe('GET /v1/decisions/check', () => {
    it('searches like the POST, maps project, leaves superseded decisions out unless asked', async () => {
      const make = (title: string) =>
        req().post('/v1/decisions').set(auth()).send({ title, rationale: 'token auth for the api', project_slug: 'check-proj' });
      const old = (await make('Use session cookies for auth')).body;
      await req().post(`/v1/decisions/${old.id}/supersede`).set(auth()).send({ title: 'Use JWT bearer tokens for auth', rationale: 'token auth for the api' });
      await req().post('/v1/decisions').set(auth()).send({ title: 'Use JWT elsewhere', rationale: 'token auth', project_slug: 'elsewhere' });
      const res = await req().get('/v1/decisions/check?query=auth%20tokens&project=check-proj&limit=5').set(auth());
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'query', 'total']);
      expect(res.body.data.map((d: { decision: { title: string } }) => d.decision.title)).toEqual(['Use JWT bearer tokens for auth']);
      const withOld = await req().get('/v1/decisions/check?query=auth%20tokens&project=check-proj&include_superseded=true').set(auth());
      expect(withOld.body.total).toBe(2);
      const post = await req().post('/v1/decisions/check').set(auth()).send({ query: 'auth tokens', project_slug: 'check-proj' });
      expect(post.body.total).toBe(2);
      const strict = await req().get('/v1/decisions/check?query=auth%20tokens&project=check-proj&threshold=1').set(auth());
      expect(strict.body.data.every((d: { score: number }) => d.score >= 1)).toBe(true);
    });

    it('wins over /v1/decisions/{id}; 422 naming a missing query; 403 without read scope', async () => {
      expect(expectError(await req().get('/v1/decisions/check').set(auth()), 422, 'validation_error').details!.map((d) => d.field)).toEqual(['query']);
      expect(expectError(await req().get('/v1/decisions/check?query=x&limit=0').set(auth()), 422, 'validation_error').details!.map((d) => d.field)).toEqual(['limit']);
      expectError(await req().get('/v1/decisions/check?query=x').set(auth(await acct.keyWith(['write']))), 403, 'authorization_error');
    });

    it("never returns another account's decisions", async () => {
      await req().post('/v1/decisions').set(auth(other.key)).send({ title: 'Secret isolation decision', rationale: 'zebra', project_slug: 'iso' });
      const res = await req().get('/v1/decisions/check?query=zebra%20isolation&project=iso').set(auth());
      expect(res.body.data).toEqual([]);
    });
  });

  describe('GET /v1/patterns/search', () => {
    it('searches like the POST; project means global plus adopted; threshold filters; empty query lists', async () => {
      const make = (title: string, scope = 'global') =>
        req().post('/v1/patterns').set(auth()).send({ title, description: 'structured logging with request ids', scope, category: 'logging' });
      const global = (await make('Structured logging')).body;
      const local = (await make('Project logging conventions', 'project')).body;
      await make('Other project logging', 'project');
      await req().post(`/v1/patterns/${local.id}/adopt`).set(auth()).send({ project: 'search-proj' });
      const res = await req().get('/v1/patterns/search?query=logging&project=search-proj&limit=10').set(auth());
      expect(res.status).toBe(200);
      expect(res.body.data.map((d: { pattern: { id: string } }) => d.pattern.id).sort()).toEqual([global.id, local.id].sort());
      expect(res.body.data[0]).toMatchObject({ name: res.body.data[0].pattern.title, category: 'logging' });
      const strict = await req().get('/v1/patterns/search?query=logging&threshold=1').set(auth());
      expect(strict.body.data.every((d: { score: number }) => d.score >= 1)).toBe(true);
      const empty = await req().get('/v1/patterns/search?query=').set(auth());
      expect(empty.status).toBe(200);
      expect(empty.body.total).toBe(3);
      const bare = await req().get('/v1/patterns/search').set(auth());
      expect(bare.body.total).toBe(3);
    });

    it('422 naming a bad limit; 403 without read scope; other accounts see none', async () => {
      expect(expectError(await req().get('/v1/patterns/search?query=x&limit=101').set(auth()), 422, 'validation_error').details!.map((d) => d.field)).toEqual(['limit']);
      expectError(await req().get('/v1/patterns/search?query=x').set(auth(await acct.keyWith(['write']))), 403, 'authorization_error');
      expect((await req().get('/v1/patterns/search?query=logging').set(auth(other.key))).body.data).toEqual([]);
    });
  });

  describe('entity-link paths', () => {
    it('links through POST /v1/entities/links and POST /v1/entities/{id}/link with 201 and the link object', async () => {
      const entity = (await req().post('/v1/entities').set(auth()).send({ name: 'Grace', type: 'person' })).body;
      const m = await memory('Grace wrote the compiler');
      const plural = await req().post('/v1/entities/links').set(auth()).send({ entity_id: entity.id, memory_id: m.id });
      expect(plural.status).toBe(201);
      expect(plural.body).toMatchObject({ entity_id: entity.id, memory_id: m.id, relationship: 'mentioned_in' });
      const byPath = await req().post(`/v1/entities/${entity.id}/link`).set(auth()).send({ memory_id: m.id, relationship: 'authored_by' });
      expect(byPath.status).toBe(201);
      expect(byPath.body).toMatchObject({ entity_id: entity.id, memory_id: m.id, relationship: 'authored_by' });
      const spec = await req().post('/v1/entities/link').set(auth()).send({ entity_id: entity.id, memory_id: m.id });
      expect(spec.body).toEqual(plural.body);
    });

    it("is 404 for another account's entity or memory, 422 naming a bad memory_id, 403 without write scope", async () => {
      const theirEntity = (await req().post('/v1/entities').set(auth(other.key)).send({ name: 'Theirs', type: 'person' })).body;
      const m = await memory('mine to link');
      expectError(await req().post(`/v1/entities/${theirEntity.id}/link`).set(auth()).send({ memory_id: m.id }), 404, 'not_found');
      expectError(await req().post('/v1/entities/links').set(auth()).send({ entity_id: theirEntity.id, memory_id: m.id }), 404, 'not_found');
      const mine = (await req().post('/v1/entities').set(auth()).send({ name: 'Mine', type: 'person' })).body;
      const bad = await req().post(`/v1/entities/${mine.id}/link`).set(auth()).send({ memory_id: 'nope' });
      expect(expectError(bad, 422, 'validation_error').details!.map((d) => d.field)).toEqual(['memory_id']);
      expectError(await req().post('/v1/entities/links').set(auth(await acct.keyWith(['read']))).send({ entity_id: mine.id, memory_id: m.id }), 403, 'authorization_error');
    });
  });

  describe('GET /v1/projects/{slug}', () => {
    it("answers the project by slug or id; another account's slug is 404", async () => {
      const p = (await req().post('/v1/projects').set(auth()).send({ name: 'Slugged', slug: 'slugged' })).body;
      expect((await req().get('/v1/projects/slugged').set(auth())).body).toEqual(p);
      expect((await req().get(`/v1/projects/${p.id}`).set(auth())).body).toEqual(p);
      await req().post('/v1/projects').set(auth(other.key)).send({ name: 'Theirs', slug: 'their-slug' });
      expectError(await req().get('/v1/projects/their-slug').set(auth()), 404, 'not_found');
      expectError(await req().get('/v1/projects/slugged').set(auth(await acct.keyWith(['write']))), 403, 'authorization_error');
    });
  });
});
