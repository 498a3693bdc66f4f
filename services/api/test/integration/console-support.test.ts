import { bearer, createAccount, createTestApp, expectError, insertMemory, TestAccount, TestApp } from '@ams/testing';

/** The read views the web console uses beyond the spec: the calling key, ingestion status, an entity's graph. */
describe('console support endpoints', () => {
  let t: TestApp;
  let acct: TestAccount;
  const get = (path: string, key = acct.key) => t.request().get(path).set(bearer(key));

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  describe('GET /v1/auth/key', () => {
    it("returns the calling key's id, scopes and agent binding, never the key", async () => {
      const key = await acct.keyWith(['read', 'write']);
      const res = await get('/v1/auth/key', key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ object: 'api_key', id: expect.any(String), scopes: ['read', 'write'], agent_id: null });
      expect(JSON.stringify(res.body)).not.toContain(key);
    });

    it('answers 401 without a valid key', async () => {
      expectError(await t.request().get('/v1/auth/key'), 401, 'unauthorized');
      expectError(await get('/v1/auth/key', 'mem_wrong'), 401, 'unauthorized');
    });
  });

  describe('GET /v1/ingestion', () => {
    it("counts the caller's memories by embedding status, and the service backlog and rate", async () => {
      const other = await createAccount(t.ctx);
      await insertMemory(t.ctx, acct.accountId, { agentId: 'ingest', content: 'ready one' });
      const failed = await insertMemory(t.ctx, acct.accountId, { agentId: 'ingest', content: 'failed one' });
      const pending = await insertMemory(t.ctx, acct.accountId, { agentId: 'ingest', content: 'pending one' });
      await insertMemory(t.ctx, other.accountId, { agentId: 'ingest', content: 'another account' });
      await t.ctx.db.knex('memories').where({ id: failed.id }).update({ embedding_status: 'failed' });
      await t.ctx.db.knex('memories').where({ id: pending.id }).update({ embedding_status: 'pending' });

      const res = await get('/v1/ingestion');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        object: 'ingestion_status',
        memories: { ready: 1, failed: 1, pending: 1, processing: 0 },
        embedder: { provider: 'lexical', model: expect.any(String) },
      });
      expect(res.body.backlog.pending).toBeGreaterThanOrEqual(1);
      expect(res.body.rate_per_second === null || typeof res.body.rate_per_second === 'number').toBe(true);
      await t.ctx.db.knex('memories').where({ id: pending.id }).update({ embedding_status: 'ready' });
    });

    it('needs the read scope: 403 otherwise', async () => {
      expectError(await get('/v1/ingestion', await acct.keyWith(['write'])), 403, 'authorization_error');
    });
  });

  describe('GET /v1/entities/{id}/graph', () => {
    const entity = async (name: string, entity_type = 'technology') =>
      (await t.request().post('/v1/entities').set(bearer(acct.key)).send({ name, entity_type })).body.id as string;
    const link = (entity_id: string, memory_id: string) =>
      t.request().post('/v1/entities/link').set(bearer(acct.key)).send({ entity_id, memory_id }).expect(201);

    it('returns the entity, its linked memories and the entities co-mentioned with it', async () => {
      const [pg, vec, redis, lonely] = [await entity('PostgreSQL'), await entity('pgvector'), await entity('Redis'), await entity('Lonely')];
      const m1 = await insertMemory(t.ctx, acct.accountId, { agentId: 'graph', content: 'PostgreSQL with pgvector' });
      const m2 = await insertMemory(t.ctx, acct.accountId, { agentId: 'graph', content: 'pgvector HNSW on PostgreSQL' });
      const m3 = await insertMemory(t.ctx, acct.accountId, { agentId: 'graph', content: 'PostgreSQL next to Redis' });
      const gone = await insertMemory(t.ctx, acct.accountId, { agentId: 'graph', content: 'deleted: PostgreSQL and Lonely' });
      for (const [e, m] of [[pg, m1], [vec, m1], [pg, m2], [vec, m2], [pg, m3], [redis, m3], [pg, gone], [lonely, gone]] as const) await link(e, m.id);
      await t.request().delete(`/v1/memories/${gone.id}`).set(bearer(acct.key)).expect(204);

      const res = await get(`/v1/entities/${pg}/graph`);
      expect(res.status).toBe(200);
      expect(res.body.object).toBe('entity_graph');
      expect(res.body.entity).toMatchObject({ id: pg, name: 'PostgreSQL', memory_count: 3 });
      expect(res.body.memories.map((m: { memory_id: string }) => m.memory_id).sort()).toEqual([m1.id, m2.id, m3.id].sort());
      expect(res.body.memories[0]).toEqual({
        memory_id: expect.any(String),
        agent_id: expect.any(String),
        content_preview: expect.any(String),
        relationship: 'mentioned_in',
        relevance_score: expect.any(Number),
        created_at: expect.stringMatching(/Z$/),
      });
      // Strongest first; a neighbour seen only through a deleted memory is not a neighbour.
      expect(res.body.neighbours).toEqual([
        { id: vec, name: 'pgvector', entity_type: 'technology', shared_memories: 2 },
        { id: redis, name: 'Redis', entity_type: 'technology', shared_memories: 1 },
      ]);
    });

    it("is 404 for an unknown id, a non-UUID or another account's entity", async () => {
      const other = await createAccount(t.ctx);
      const theirs = (await t.request().post('/v1/entities').set(bearer(other.key)).send({ name: 'Theirs', entity_type: 'other' })).body.id;
      expectError(await get('/v1/entities/00000000-0000-4000-8000-000000000000/graph'), 404, 'not_found');
      expectError(await get('/v1/entities/nope/graph'), 404, 'not_found');
      expectError(await get(`/v1/entities/${theirs}/graph`), 404, 'not_found');
    });
  });

  it('GET /v2/memories/{id}/status names the embedding model', async () => {
    const m = await insertMemory(t.ctx, acct.accountId, { agentId: 'status', content: 'which model?' });
    const res = await get(`/v2/memories/${m.id}/status`);
    expect(res.body).toMatchObject({ status: 'ready', model: t.ctx.embedder.model });
  });
});
