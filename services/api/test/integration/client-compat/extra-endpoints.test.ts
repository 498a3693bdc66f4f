import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

const MISSING = '00000000-0000-4000-8000-000000000000';
const fields = (res: Parameters<typeof expectError>[0]) => expectError(res, 422, 'validation_error').details!.map((d) => d.field);

/** docs/clients.md, "Additional endpoints": the endpoints existing clients call that the spec lacks. */
describe('endpoints existing clients call beyond the spec', () => {
  let t: TestApp;
  let acct: TestAccount;
  let other: TestAccount;
  const req = () => t.request();
  const auth = (key = acct.key) => bearer(key);
  const memory = async (body: object, key = acct.key) => (await req().post('/v1/memories').set(auth(key)).send({ agent_id: 'extra', ...body })).body;

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
    other = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  describe('PUT /v1/memories/{id}/importance', () => {
    it('promotes to hot from the importance, demotes to a given tier, and returns the memory', async () => {
      const m = await memory({ content: 'Promote me', importance: 0.5 });
      const up = await req().put(`/v1/memories/${m.id}/importance`).set(auth()).send({ importance: 0.9 });
      expect(up.status).toBe(200);
      expect(up.body).toMatchObject({ object: 'memory', id: m.id, importance: 0.9, tier: 'hot', visibility: 'private' });
      const down = await req().put(`/v1/memories/${m.id}/importance`).set(auth()).send({ importance: 0.85, tier: 'cold' });
      expect(down.body).toMatchObject({ importance: 0.85, tier: 'cold' });
      // A tier set explicitly before still follows a later promotion without a tier.
      const again = await req().put(`/v1/memories/${m.id}/importance`).set(auth()).send({ importance: 0.1 });
      expect(again.body).toMatchObject({ importance: 0.1, tier: 'cold' });
      const warm = await req().put(`/v1/memories/${m.id}/importance`).set(auth()).send({ importance: 0.5 });
      expect(warm.body.tier).toBe('warm');
      const row = await t.ctx.db.knex('memories').where({ id: m.id }).first();
      expect(row.tier).toBe('warm');
    });

    it.each([
      [{}, 'importance'],
      [{ importance: 1.5 }, 'importance'],
      [{ importance: -0.1 }, 'importance'],
      [{ importance: 'high' }, 'importance'],
      [{ importance: 0.5, tier: 'lukewarm' }, 'tier'],
    ])('rejects %j with 422 naming the field and changes nothing', async (body, field) => {
      const m = await memory({ content: 'Stays as it is', importance: 0.5 });
      expect(fields(await req().put(`/v1/memories/${m.id}/importance`).set(auth()).send(body))).toEqual([field]);
      expect((await t.ctx.db.knex('memories').where({ id: m.id }).first()).importance).toBeCloseTo(0.5);
    });

    it("is 404 for an unknown or another account's memory, 403 without write scope", async () => {
      expectError(await req().put(`/v1/memories/${MISSING}/importance`).set(auth()).send({ importance: 0.9 }), 404, 'not_found');
      const theirs = await memory({ content: 'theirs' }, other.key);
      expectError(await req().put(`/v1/memories/${theirs.id}/importance`).set(auth()).send({ importance: 0.9 }), 404, 'not_found');
      const mine = await memory({ content: 'mine' });
      expectError(await req().put(`/v1/memories/${mine.id}/importance`).set(auth(await acct.keyWith(['read']))).send({ importance: 0.9 }), 403, 'authorization_error');
    });
  });

  describe('GET /v1/quota', () => {
    it("reports the key's rate budget and the account's usage, only its own", async () => {
      const fresh = await createAccount(t.ctx);
      await memory({ content: 'counted content' }, fresh.key);
      const res = await req().get('/v1/quota').set(auth(fresh.key));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        used: expect.any(Number),
        limit: Number(res.headers['x-ratelimit-limit']),
        resetAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        usage: { memories: 1, agents: 1, projects: 0, entities: expect.any(Number), storage_bytes: expect.any(Number) },
      });
      expect(res.body.used).toBe(res.body.limit - Number(res.headers['x-ratelimit-remaining']));
      expect(res.body.usage.storage_bytes).toBeGreaterThanOrEqual('counted content'.length);
    });

    it('needs read scope', async () => {
      expectError(await req().get('/v1/quota').set(auth(await acct.keyWith(['write']))), 403, 'authorization_error');
      expectError(await req().get('/v1/quota'), 401, 'unauthorized');
    });
  });

  describe('POST /v1/embed', () => {
    it("returns the stored memories' model vector for a text, and one per text for texts", async () => {
      const res = await req().post('/v1/embed').set(auth()).send({ text: 'what did we decide about caching?', prefix: 'search_query' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ model: t.ctx.embedder.model, dimension: t.ctx.embedder.dimensions });
      expect(res.body.embedding).toHaveLength(t.ctx.embedder.dimensions);
      const [expected] = await t.ctx.embedder.embed(['what did we decide about caching?']);
      expect(res.body.embedding[0]).toBeCloseTo(expected![0]!, 6);
      const many = await req().post('/v1/embed').set(auth()).send({ texts: ['one', 'two'] });
      expect(many.body.embeddings).toHaveLength(2);
      expect(many.body).not.toHaveProperty('embedding');
    });

    it.each([
      [{}, 'text'],
      [{ text: '' }, 'text'],
      [{ text: '   ' }, 'text'],
      [{ text: 'x'.repeat(10_001) }, 'text'],
      [{ text: 'x', prefix: 'clustering' }, 'prefix'],
      [{ text: 'x', texts: ['y'] }, 'text'],
      [{ texts: [] }, 'texts'],
      [{ texts: Array.from({ length: 65 }, (_, i) => `t${i}`) }, 'texts'],
    ])('rejects %# with 422 naming the field', async (body, field) => {
      expect(fields(await req().post('/v1/embed').set(auth()).send(body))).toEqual([field]);
    });

    it('needs read scope', async () => {
      expectError(await req().post('/v1/embed').set(auth(await acct.keyWith(['write']))).send({ text: 'x' }), 403, 'authorization_error');
    });
  });

  describe('context-build aliases', () => {
    beforeAll(async () => {
      await memory({ content: 'The billing service retries webhooks three times', project: 'billing', agent_id: 'ctx-agent' });
      await memory({ content: 'The billing dashboard uses dark mode', agent_id: 'ctx-agent' });
      await memory({ content: 'Confidential billing credentials rotate monthly', visibility: 'confidential', project: 'billing', agent_id: 'ctx-agent' });
    });

    it('POST /v1/memories/context builds context, narrowed to a project', async () => {
      const res = await req().post('/v1/memories/context').set(auth()).send({ query: 'billing', project: 'billing', threshold: 0, limit: 10, agent_id: 'ctx-agent' });
      expect(res.status).toBe(200);
      expect(res.body.memories.map((m: { content: string }) => m.content)).toEqual(['The billing service retries webhooks three times']);
      expect(res.body).toMatchObject({ memories_used: 1, total_chars: res.body.context.length });
      const unknown = await req().post('/v1/memories/context').set(auth()).send({ query: 'billing', project: 'nope', threshold: 0 });
      expect(unknown.body).toMatchObject({ context: '', memories_used: 0, memories: [] });
    });

    it('POST /v2/context takes max_memories, exclude_memory_ids, search_mode and ai_enhanced', async () => {
      const all = await req().post('/v2/context').set(auth()).send({ query: 'billing', agent_id: 'ctx-agent', threshold: 0, max_memories: 100 });
      expect(all.status).toBe(200);
      expect(all.body.memories.length).toBe(2);
      const firstId = all.body.memories[0].memory_id;
      const rest = await req()
        .post('/v2/context')
        .set(auth())
        .send({ query: 'billing', agent_id: 'ctx-agent', threshold: 0, exclude_memory_ids: [firstId], search_mode: 'hybrid', ai_enhanced: true });
      expect(rest.body.memories.map((m: { id: string }) => m.id)).not.toContain(firstId);
      expect(rest.body.memories.length).toBe(1);
      expect(rest.body).toMatchObject({ ai_enhanced: true, summary: expect.any(String), ranking_version: expect.any(String) });
      expect(rest.body.summary.length).toBeGreaterThan(0);
    });

    it.each([
      ['/v2/context', { query: 'x', max_memories: 0 }, 'max_memories'],
      ['/v2/context', { query: 'x', search_mode: 'fuzzy' }, 'search_mode'],
      ['/v2/context', { query: 'x', exclude_memory_ids: ['not-a-uuid'] }, 'exclude_memory_ids.0'],
      ['/v1/memories/context', { query: '' }, 'query'],
      ['/v1/memories/context', { query: 'x', threshold: 1.5 }, 'threshold'],
    ])('%s rejects %j with 422 naming the field', async (path, body, field) => {
      expect(fields(await req().post(path).set(auth()).send(body))).toEqual([field]);
    });

    it("needs read scope and never shows another account's memories", async () => {
      expectError(await req().post('/v2/context').set(auth(await acct.keyWith(['write']))).send({ query: 'x' }), 403, 'authorization_error');
      expectError(await req().post('/v1/memories/context').set(auth(await acct.keyWith(['write']))).send({ query: 'x' }), 403, 'authorization_error');
      const theirs = await req().post('/v2/context').set(auth(other.key)).send({ query: 'billing', threshold: 0, max_memories: 50 });
      expect(theirs.status).toBe(200);
      expect(theirs.body.memories.filter((m: { content: string }) => m.content.includes('billing'))).toEqual([]);
    });
  });

  describe('GET /v1/entities/{id}/neighborhood', () => {
    const entity = async (name: string, key = acct.key) => (await req().post('/v1/entities').set(auth(key)).send({ name, type: 'person' })).body;
    const link = (entityId: string, memoryId: string, key = acct.key) =>
      req().post('/v1/entities/link').set(auth(key)).send({ entity_id: entityId, memory_id: memoryId });
    const ents: Record<string, { id: string }> = {};

    beforeAll(async () => {
      // A - B - C - D chain over shared memories, E isolated; F linked to A only by a deleted memory.
      for (const n of ['Ann', 'Bob', 'Cat', 'Dan', 'Eve', 'Fay']) ents[n] = await entity(n);
      const ab = await memory({ content: 'Ann and Bob pair', auto_extract_entities: false });
      const bc = await memory({ content: 'Bob and Cat pair', auto_extract_entities: false });
      const cd = await memory({ content: 'Cat and Dan pair', auto_extract_entities: false });
      const af = await memory({ content: 'Ann and Fay pair', auto_extract_entities: false });
      for (const [e, m] of [['Ann', ab], ['Bob', ab], ['Bob', bc], ['Cat', bc], ['Cat', cd], ['Dan', cd], ['Ann', af], ['Fay', af]] as const) {
        await link(ents[e]!.id, m.id);
      }
      await req().delete(`/v1/memories/${af.id}`).set(auth());
    });

    it('walks shared memories to the asked depth, nearest first, with the entity and its memories', async () => {
      const one = await req().get(`/v1/entities/${ents.Ann!.id}/neighborhood?depth=1&max_neighbors=50`).set(auth());
      expect(one.status).toBe(200);
      expect(one.body.entity).toEqual({ id: ents.Ann!.id, name: 'Ann', type: 'person', entity_type: 'person' });
      expect(one.body.neighbors).toEqual([{ id: ents.Bob!.id, name: 'Bob', type: 'person', entity_type: 'person', relationship: 'co_occurs_with', depth: 1 }]);
      expect(one.body.total_neighbors).toBe(1);
      expect(one.body.memories.map((m: { content: string }) => m.content)).toEqual(['Ann and Bob pair']);
      const three = await req().get(`/v1/entities/${ents.Ann!.id}/neighborhood?depth=3`).set(auth());
      expect(three.body.neighbors.map((n: { name: string; depth: number }) => [n.name, n.depth])).toEqual([['Bob', 1], ['Cat', 2], ['Dan', 3]]);
      const capped = await req().get(`/v1/entities/${ents.Ann!.id}/neighborhood?depth=3&max_neighbors=2`).set(auth());
      expect(capped.body.neighbors.map((n: { name: string }) => n.name)).toEqual(['Bob', 'Cat']);
      expect(capped.body.total_neighbors).toBe(3);
      const alone = await req().get(`/v1/entities/${ents.Eve!.id}/neighborhood`).set(auth());
      expect(alone.body).toMatchObject({ neighbors: [], total_neighbors: 0, memories: [] });
    });

    it.each([
      ['depth=6', 'depth'],
      ['depth=0', 'depth'],
      ['depth=two', 'depth'],
      ['max_neighbors=101', 'max_neighbors'],
      ['max_neighbors=0', 'max_neighbors'],
    ])('rejects %s with 422 naming the field (caps are refused, not run slowly)', async (query, field) => {
      expect(fields(await req().get(`/v1/entities/${ents.Ann!.id}/neighborhood?${query}`).set(auth()))).toEqual([field]);
    });

    it("is 404 for an unknown, non-UUID or another account's entity; 403 without read scope", async () => {
      expectError(await req().get(`/v1/entities/${MISSING}/neighborhood`).set(auth()), 404, 'not_found');
      expectError(await req().get('/v1/entities/ann/neighborhood').set(auth()), 404, 'not_found');
      expectError(await req().get(`/v1/entities/${ents.Ann!.id}/neighborhood`).set(auth(other.key)), 404, 'not_found');
      expectError(await req().get(`/v1/entities/${ents.Ann!.id}/neighborhood`).set(auth(await acct.keyWith(['write']))), 403, 'authorization_error');
    });
  });

  describe('GET /v1/patterns/suggest', () => {
    it('suggests global patterns the project has not adopted, most adopted first', async () => {
      const make = async (title: string, scope = 'global') =>
        (await req().post('/v1/patterns').set(auth()).send({ title, description: 'd', scope })).body as { id: string };
      const popular = await make('Popular');
      const adopted = await make('Already adopted');
      const plain = await make('Plain');
      await make('Project only', 'project');
      await req().post(`/v1/patterns/${popular.id}/adopt`).set(auth()).send({ project: 'elsewhere-a' });
      await req().post(`/v1/patterns/${popular.id}/adopt`).set(auth()).send({ project: 'elsewhere-b' });
      await req().post(`/v1/patterns/${adopted.id}/adopt`).set(auth()).send({ project: 'suggest-me' });
      const res = await req().get('/v1/patterns/suggest?project=suggest-me').set(auth());
      expect(res.status).toBe(200);
      expect(res.body.project).toBe('suggest-me');
      expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([popular.id, plain.id]);
      expect(res.body.total).toBe(2);
      expect(res.body.data[0]).toMatchObject({ id: popular.id, title: 'Popular', adoption_count: 2 });
      const one = await req().get('/v1/patterns/suggest?project=suggest-me&limit=1').set(auth());
      expect(one.body).toMatchObject({ total: 2, data: [{ id: popular.id }] });
    });

    it("422 naming project or limit; 404 for an unknown or another account's project; 403 without read", async () => {
      expect(fields(await req().get('/v1/patterns/suggest').set(auth()))).toEqual(['project']);
      expect(fields(await req().get('/v1/patterns/suggest?project=Bad_Slug').set(auth()))).toEqual(['project']);
      expect(fields(await req().get('/v1/patterns/suggest?project=suggest-me&limit=0').set(auth()))).toEqual(['limit']);
      expectError(await req().get('/v1/patterns/suggest?project=nowhere').set(auth()), 404, 'not_found');
      expectError(await req().get('/v1/patterns/suggest?project=suggest-me').set(auth(other.key)), 404, 'not_found');
      expectError(await req().get('/v1/patterns/suggest?project=suggest-me').set(auth(await acct.keyWith(['write']))), 403, 'authorization_error');
    });
  });

  describe('project relationships', () => {
    const relate = (source: string, body: object, key = acct.key) => req().post(`/v1/projects/${source}/relationships`).set(auth(key)).send(body);

    it('creates typed edges (creating unregistered projects), returns a repeated edge, and lists them by direction', async () => {
      const first = await relate('web', { target_project: 'api', relationship_type: 'depends_on', metadata: { via: 'rest' } });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({
        id: expect.any(String),
        source_project: 'web',
        target_project: 'api',
        relationship_type: 'depends_on',
        metadata: { via: 'rest' },
        created_at: expect.any(String),
      });
      const again = await relate('web', { target_project: 'api', relationship_type: 'depends_on' });
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(first.body.id);
      await relate('mobile', { target_project: 'api', relationship_type: 'api_consumer' });
      await relate('api', { target_project: 'db-schema', relationship_type: 'shares_schema' });
      await relate('api', { target_project: 'auth', relationship_type: 'depends_on' });
      expect((await req().get('/v1/projects/api').set(auth())).status).toBe(200);

      const deps = await req().get('/v1/projects/api/dependencies').set(auth());
      expect(deps.status).toBe(200);
      expect(deps.body).toMatchObject({ project: 'api', total: 1 });
      expect(deps.body.data[0]).toMatchObject({ project: { slug: 'auth', name: 'auth' }, relationship_type: 'depends_on', direction: 'outgoing', metadata: {} });
      const dependents = await req().get('/v1/projects/api/dependents').set(auth());
      expect(dependents.body.data.map((e: { project: { slug: string }; direction: string }) => [e.project.slug, e.direction])).toEqual([
        ['web', 'incoming'],
        ['mobile', 'incoming'],
      ]);
      const related = await req().get('/v1/projects/api/related').set(auth());
      expect(related.body.total).toBe(4);
      expect(related.body.data.map((e: { project: { slug: string } }) => e.project.slug).sort()).toEqual(['auth', 'db-schema', 'mobile', 'web']);
    });

    it('leaves out edges to deleted projects', async () => {
      await relate('gone-dependent', { target_project: 'stays', relationship_type: 'depends_on' });
      const gone = (await req().get('/v1/projects/gone-dependent').set(auth())).body;
      await req().delete(`/v1/projects/${gone.id}`).set(auth());
      expect((await req().get('/v1/projects/stays/dependents').set(auth())).body.total).toBe(0);
    });

    it.each([
      [{ relationship_type: 'depends_on' }, 'target_project'],
      [{ target_project: 'Bad Slug', relationship_type: 'depends_on' }, 'target_project'],
      [{ target_project: 'x' }, 'relationship_type'],
      [{ target_project: 'x', relationship_type: 'r'.repeat(101) }, 'relationship_type'],
      [{ target_project: 'x', relationship_type: 'has space' }, 'relationship_type'],
      [{ target_project: 'x', relationship_type: 'depends_on', metadata: 'no' }, 'metadata'],
      [{ target_project: 'self-loop', relationship_type: 'depends_on' }, 'target_project'],
    ])('rejects %j with 422 naming the field and stores nothing', async (body, field) => {
      const before = await t.ctx.db.knex('project_relationships').where({ account_id: acct.accountId }).count('* as n').first();
      expect(fields(await relate('self-loop', body))).toEqual([field]);
      const after = await t.ctx.db.knex('project_relationships').where({ account_id: acct.accountId }).count('* as n').first();
      expect(after!.n).toBe(before!.n);
    });

    it("keeps accounts apart: another account's slugs are its own, reads of them are 404", async () => {
      await relate('web', { target_project: 'api', relationship_type: 'depends_on' }, other.key);
      const theirs = await req().get('/v1/projects/api/dependents').set(auth(other.key));
      expect(theirs.body.data.map((e: { project: { slug: string } }) => e.project.slug)).toEqual(['web']);
      expectError(await req().get('/v1/projects/nowhere/dependencies').set(auth()), 404, 'not_found');
      expectError(await req().get('/v1/projects/Not_Slug/related').set(auth()), 404, 'not_found');
    });

    it('needs write scope to relate and read scope to list', async () => {
      expectError(await relate('web', { target_project: 'api', relationship_type: 'x' }, await acct.keyWith(['read'])), 403, 'authorization_error');
      for (const view of ['dependencies', 'dependents', 'related']) {
        expectError(await req().get(`/v1/projects/api/${view}`).set(auth(await acct.keyWith(['write']))), 403, 'authorization_error');
      }
    });
  });

  describe('POST /v1/projects/impact-analysis and GET /v1/projects/shared-patterns', () => {
    let shared: { id: string };

    beforeAll(async () => {
      const relate = (source: string, target: string, type: string) =>
        req().post(`/v1/projects/${source}/relationships`).set(auth()).send({ target_project: target, relationship_type: type });
      await relate('checkout', 'payments', 'depends_on');
      await relate('ledger', 'payments', 'api_consumer');
      await relate('docs', 'payments', 'pattern_source');
      await memory({ content: 'Checkout calls the payments refund endpoint', project: 'checkout' });
      await req().post('/v1/decisions').set(auth()).send({ title: 'Refunds go through payments', rationale: 'refund endpoint', project_slug: 'checkout' });
      await req().post('/v1/decisions').set(auth()).send({ title: 'Payments owns refunds', rationale: 'refund endpoint', project_slug: 'payments' });
      shared = (await req().post('/v1/patterns').set(auth()).send({ title: 'Idempotency keys', description: 'd' })).body;
      for (const project of ['checkout', 'payments']) await req().post(`/v1/patterns/${shared.id}/adopt`).set(auth()).send({ project });
      const onlyOne = (await req().post('/v1/patterns').set(auth()).send({ title: 'Only checkout', description: 'd' })).body;
      await req().post(`/v1/patterns/${onlyOne.id}/adopt`).set(auth()).send({ project: 'checkout' });
    });

    it('finds the dependents with their nearest decisions and memories, and the shared patterns', async () => {
      const res = await req().post('/v1/projects/impact-analysis').set(auth()).send({ project: 'payments', change_description: 'change the refund endpoint' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ project: 'payments', change_description: 'change the refund endpoint', total_affected: 2 });
      const checkout = res.body.affected_projects.find((a: { slug: string }) => a.slug === 'checkout');
      expect(checkout).toMatchObject({ relationship_type: 'depends_on' });
      expect(checkout.decisions[0].decision.title).toBe('Refunds go through payments');
      expect(checkout.memories[0].memory.content).toBe('Checkout calls the payments refund endpoint');
      expect(res.body.affected_projects.map((a: { slug: string }) => a.slug).sort()).toEqual(['checkout', 'ledger']);
      expect(res.body.shared_patterns.map((p: { id: string }) => p.id)).toEqual([shared.id]);
      expect(res.body.related_decisions.map((d: { decision: { title: string } }) => d.decision.title)).toEqual(['Payments owns refunds']);
    });

    it('lists patterns adopted by both projects; an unknown slug matches nothing', async () => {
      const res = await req().get('/v1/projects/shared-patterns?a=checkout&b=payments').set(auth());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ project_a: 'checkout', project_b: 'payments', total: 1 });
      expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([shared.id]);
      const none = await req().get('/v1/projects/shared-patterns?a=checkout&b=unknown').set(auth());
      expect(none.body).toMatchObject({ data: [], total: 0 });
    });

    it('422 naming the field; 404 for an unknown project; literal segments win over {id}', async () => {
      expect(fields(await req().post('/v1/projects/impact-analysis').set(auth()).send({ project: 'payments' }))).toEqual(['change_description']);
      expect(fields(await req().post('/v1/projects/impact-analysis').set(auth()).send({ project: 'payments', change_description: 'x'.repeat(5_001) }))).toEqual([
        'change_description',
      ]);
      expect(fields(await req().post('/v1/projects/impact-analysis').set(auth()).send({ change_description: 'x' }))).toEqual(['project']);
      expect(fields(await req().get('/v1/projects/shared-patterns?a=checkout').set(auth()))).toEqual(['b']);
      expectError(await req().post('/v1/projects/impact-analysis').set(auth()).send({ project: 'nowhere', change_description: 'x' }), 404, 'not_found');
    });

    it("keeps accounts apart and needs read scope", async () => {
      expectError(await req().post('/v1/projects/impact-analysis').set(auth(other.key)).send({ project: 'payments', change_description: 'x' }), 404, 'not_found');
      expect((await req().get('/v1/projects/shared-patterns?a=checkout&b=payments').set(auth(other.key))).body.total).toBe(0);
      const writeOnly = await acct.keyWith(['write']);
      expectError(await req().post('/v1/projects/impact-analysis').set(auth(writeOnly)).send({ project: 'payments', change_description: 'x' }), 403, 'authorization_error');
      expectError(await req().get('/v1/projects/shared-patterns?a=checkout&b=payments').set(auth(writeOnly)), 403, 'authorization_error');
    });
  });
});
