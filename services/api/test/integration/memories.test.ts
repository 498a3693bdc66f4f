import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('memories v1', () => {
  let t: TestApp;
  let acct: TestAccount;
  const post = (body: object, key = acct.key) => t.request().post('/v1/memories').set(bearer(key)).send(body);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  describe('POST /v1/memories', () => {
    it('stores a memory and answers 201 with the full memory object', async () => {
      const res = await post({ content: 'The team prefers PostgreSQL for analytics', agent_id: 'planner', metadata: { source: 'chat' }, importance: 0.9 });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        object: 'memory',
        content: 'The team prefers PostgreSQL for analytics',
        metadata: { source: 'chat' },
        visibility: 'private',
        importance: 0.9,
        tier: 'hot',
        is_duplicate: false,
        session_id: null,
        project_id: null,
      });
      expect(res.body.agent_id).toMatch(/^[0-9a-f-]{36}$/); // a name in, the agent's UUID out
      expect(Number.isInteger(res.body.created_at)).toBe(true);
      expect(Math.abs(res.body.created_at - Date.now() / 1000)).toBeLessThan(60);
      expect(Number.isInteger(res.body.updated_at)).toBe(true);
      expect(['fact', 'event', 'insight', 'task', 'preference', 'entity_reference', 'system']).toContain(res.body.memory_type);
      expect(Array.isArray(res.body.entities)).toBe(true);
    });

    it('reuses the agent a name resolved to, and accepts its UUID', async () => {
      const a = await post({ content: 'first note', agent_id: 'named-agent' });
      const b = await post({ content: 'second note', agent_id: 'named-agent' });
      expect(b.body.agent_id).toBe(a.body.agent_id);
      const c = await post({ content: 'third note', agent_id: a.body.agent_id });
      expect(c.body.agent_id).toBe(a.body.agent_id);
    });

    it.each([
      [0.8, 'hot'],
      [0.79, 'warm'],
      [0.3, 'warm'],
      [0.29, 'cold'],
      [0, 'cold'],
    ])('computes the tier from importance %p → %s', async (importance, tier) => {
      expect((await post({ content: `tier check ${importance}`, agent_id: 'tiers', importance })).body.tier).toBe(tier);
    });

    it('keeps an explicit tier and memory_type', async () => {
      const res = await post({ content: 'pinned', agent_id: 'tiers', importance: 0.1, tier: 'hot', memory_type: 'system' });
      expect(res.body).toMatchObject({ tier: 'hot', memory_type: 'system' });
    });

    it('classifies memory_type when omitted', async () => {
      expect((await post({ content: 'Remember to rotate the API keys before Friday', agent_id: 'cls' })).body.memory_type).toBe('task');
      expect((await post({ content: 'The user prefers dark mode and vim keybindings', agent_id: 'cls' })).body.memory_type).toBe('preference');
    });

    it('extracts and links entities when auto_extract_entities is true, never when false', async () => {
      const content = 'Satya Nadella announced that Microsoft will expand Azure in Berlin';
      const on = await post({ content, agent_id: 'ner', auto_extract_entities: true });
      expect(on.body.entities).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'organization', value: 'Microsoft' })]));
      for (const e of on.body.entities) expect(e.confidence).toBeGreaterThan(0);
      const off = await post({ content, agent_id: 'ner', auto_extract_entities: false });
      expect(off.body.entities).toEqual([]);
      const fetched = await t.request().get(`/v1/memories/${on.body.id}`).set(bearer(acct.key));
      expect(fetched.body.entities).toEqual(expect.arrayContaining([expect.objectContaining({ value: 'Microsoft' })]));
    });

    it('with deduplicate, returns the near-identical existing memory with is_duplicate true (200)', async () => {
      const first = await post({ content: 'Deploys happen every Tuesday at noon', agent_id: 'dedup' });
      const again = await post({ content: 'Deploys happen every Tuesday at noon', agent_id: 'dedup', deduplicate: true });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ id: first.body.id, is_duplicate: true });
      // Another agent's memory is never a duplicate.
      const other = await post({ content: 'Deploys happen every Tuesday at noon', agent_id: 'dedup-2', deduplicate: true });
      expect(other.status).toBe(201);
      // Different enough content is stored.
      const different = await post({ content: 'The cafeteria serves pasta on Fridays', agent_id: 'dedup', deduplicate: true, dedup_threshold: 0.99 });
      expect(different.status).toBe(201);
    });

    it.each([
      [{ agent_id: 'a' }, 'content'],
      [{ content: '', agent_id: 'a' }, 'content'],
      [{ content: '   \n\t ', agent_id: 'a' }, 'content'],
      [{ content: 'x'.repeat(50_001), agent_id: 'a' }, 'content'],
      [{ content: 42, agent_id: 'a' }, 'content'],
      [{ content: 'ok', agent_id: 'a', importance: 1.01 }, 'importance'],
      [{ content: 'ok', agent_id: 'a', importance: -0.01 }, 'importance'],
      [{ content: 'ok', agent_id: 'a', memory_type: 'rumour' }, 'memory_type'],
      [{ content: 'ok', agent_id: 'a', tier: 'lukewarm' }, 'tier'],
      [{ content: 'ok', agent_id: 'a', visibility: 'public' }, 'visibility'],
      [{ content: 'ok', agent_id: 'a', dedup_threshold: 0.49 }, 'dedup_threshold'],
      [{ content: 'ok', agent_id: 'a', dedup_threshold: 1.01 }, 'dedup_threshold'],
      [{ content: 'ok', agent_id: 'a', metadata: 'tags' }, 'metadata'],
      [{ content: 'ok', agent_id: 'a', metadata: { blob: 'x'.repeat(10_231) } }, 'metadata'],
      [{ content: 'ok', agent_id: 'a', session_id: 'nope' }, 'session_id'],
      [{ content: 'ok', agent_id: 'x'.repeat(256) }, 'agent_id'],
    ])('rejects %j with 422 on %s', async (body, field) => {
      const res = await post(body);
      expect(expectError(res, 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
    });

    it('accepts the last valid values of every bound', async () => {
      const boundary = [
        { content: 'x'.repeat(50_000), agent_id: 'bounds' },
        { content: 'y', agent_id: 'bounds', importance: 1, dedup_threshold: 0.5 },
        { content: 'z', agent_id: 'bounds', importance: 0, dedup_threshold: 1 },
        // {"blob":"..."} serialized is exactly 10,240 bytes.
        { content: 'm', agent_id: 'bounds', metadata: { blob: 'x'.repeat(10_240 - '{"blob":""}'.length) } },
      ];
      for (const body of boundary) expect((await post(body)).status).toBe(201);
    });

    it('requires agent_id unless the key is bound to an agent', async () => {
      expect(expectError(await post({ content: 'no agent' }), 422, 'validation_error').details![0]!.field).toBe('agent_id');
    });

    it('answers 404 for an unknown agent UUID, session or project_id; an unknown project slug is created', async () => {
      expectError(await post({ content: 'x', agent_id: UNKNOWN_ID }), 404, 'not_found');
      expectError(await post({ content: 'x', agent_id: 'a', session_id: UNKNOWN_ID }), 404, 'not_found');
      expectError(await post({ content: 'x', agent_id: 'a', project_id: UNKNOWN_ID }), 404, 'not_found');
      const res = await post({ content: 'x', agent_id: 'a', project: 'no-such-project' });
      expect(res.status).toBe(201);
      expect(res.body.project_id).toEqual(expect.any(String));
    });

    it('needs write scope', async () => {
      const res = await post({ content: 'x', agent_id: 'a' }, await acct.keyWith(['read']));
      expect(expectError(res, 403, 'authorization_error').message).toBe('Insufficient scope. Required: write');
    });
  });

  describe('GET, PATCH, DELETE and restore', () => {
    it('gets a memory; list items omit visibility, session_id, project_id and is_duplicate', async () => {
      const created = await post({ content: 'list me', agent_id: 'lister', memory_type: 'fact' });
      const got = await t.request().get(`/v1/memories/${created.body.id}`).set(bearer(acct.key));
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ id: created.body.id, visibility: 'private', session_id: null });
      const list = await t.request().get(`/v1/memories?agent_id=lister`).set(bearer(acct.key));
      expect(list.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null, total_count: 1 });
      expect(list.body.data[0].id).toBe(created.body.id);
      for (const omitted of ['visibility', 'session_id', 'project_id', 'is_duplicate']) expect(list.body.data[0]).not.toHaveProperty(omitted);
    });

    it('lists by memory_type, newest first, with pages', async () => {
      for (let i = 0; i < 3; i++) await post({ content: `event ${i}`, agent_id: 'pager', memory_type: 'event' });
      await post({ content: 'a fact', agent_id: 'pager', memory_type: 'fact' });
      const first = await t.request().get('/v1/memories?agent_id=pager&memory_type=event&limit=2').set(bearer(acct.key));
      expect(first.body).toMatchObject({ total_count: 3, has_more: true });
      expect(first.body.data.map((m: { content: string }) => m.content)).toEqual(['event 2', 'event 1']);
      const next = await t.request().get(`/v1/memories?agent_id=pager&memory_type=event&limit=2&cursor=${first.body.next_cursor}`).set(bearer(acct.key));
      expect(next.body.data.map((m: { content: string }) => m.content)).toEqual(['event 0']);
      expectError(await t.request().get('/v1/memories?memory_type=gossip').set(bearer(acct.key)), 422, 'validation_error');
      const unknownName = await t.request().get('/v1/memories?agent_id=never-written').set(bearer(acct.key));
      expect(unknownName.body).toMatchObject({ data: [], total_count: 0 });
    });

    it('patches: metadata merged, content re-embedded, importance re-tiers unless tier was explicit', async () => {
      const m = await post({ content: 'the old content about cats', agent_id: 'patcher', metadata: { a: 1, b: 2 }, importance: 0.5 });
      const res = await t.request().patch(`/v1/memories/${m.body.id}`).set(bearer(acct.key)).send({ content: 'new content about kubernetes clusters', metadata: { b: 3, c: 4 }, importance: 0.95 });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ content: 'new content about kubernetes clusters', metadata: { a: 1, b: 3, c: 4 }, importance: 0.95, tier: 'hot' });
      const search = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'kubernetes clusters', agent_id: 'patcher' });
      expect(search.body.data[0].memory.id).toBe(m.body.id);
      const pinned = await post({ content: 'pinned cold', agent_id: 'patcher', tier: 'cold' });
      const repatched = await t.request().patch(`/v1/memories/${pinned.body.id}`).set(bearer(acct.key)).send({ importance: 0.99 });
      expect(repatched.body.tier).toBe('cold');
    });

    it('rejects bad patches', async () => {
      const m = await post({ content: 'patch target', agent_id: 'patcher' });
      expectError(await t.request().patch(`/v1/memories/${m.body.id}`).set(bearer(acct.key)).send({}), 422, 'validation_error');
      const blank = await t.request().patch(`/v1/memories/${m.body.id}`).set(bearer(acct.key)).send({ content: '  ' });
      expect(expectError(blank, 422, 'validation_error').details![0]!.field).toBe('content');
      expectError(await t.request().patch(`/v1/memories/${UNKNOWN_ID}`).set(bearer(acct.key)).send({ importance: 1 }), 404, 'not_found');
    });

    it('soft-deletes: gone from get, list and every search mode; restore brings it back', async () => {
      const m = await post({ content: 'ephemeral zebra migration notes', agent_id: 'deleter' });
      const del = await t.request().delete(`/v1/memories/${m.body.id}`).set(bearer(acct.key));
      expect(del.status).toBe(204);
      expect(del.text).toBe('');
      expectError(await t.request().get(`/v1/memories/${m.body.id}`).set(bearer(acct.key)), 404, 'not_found');
      expect((await t.request().get('/v1/memories?agent_id=deleter').set(bearer(acct.key))).body.total_count).toBe(0);
      for (const mode of ['semantic', 'keyword', 'hybrid']) {
        const s = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'zebra migration', search_mode: mode });
        expect(s.body.data.map((d: { memory: { id: string } }) => d.memory.id)).not.toContain(m.body.id);
      }
      const row = await t.ctx.db.knex('memories').where({ id: m.body.id }).first();
      expect(row.deleted_at).not.toBeNull(); // retained
      expectError(await t.request().delete(`/v1/memories/${m.body.id}`).set(bearer(acct.key)), 404, 'not_found');
      const restored = await t.request().post(`/v1/memories/${m.body.id}/restore`).set(bearer(acct.key));
      expect(restored.status).toBe(200);
      expect(restored.body.id).toBe(m.body.id);
      expect((await t.request().get(`/v1/memories/${m.body.id}`).set(bearer(acct.key))).status).toBe(200);
    });

    it('needs delete scope to delete', async () => {
      const m = await post({ content: 'keep me', agent_id: 'deleter' });
      const res = await t.request().delete(`/v1/memories/${m.body.id}`).set(bearer(await acct.keyWith(['read', 'write'])));
      expect(expectError(res, 403, 'authorization_error').message).toBe('Insufficient scope. Required: delete');
    });

    it("never shows another account's memory", async () => {
      const other = await createAccount(t.ctx);
      const theirs = await post({ content: 'secret plans of the other account', agent_id: 'spy' }, other.key);
      expectError(await t.request().get(`/v1/memories/${theirs.body.id}`).set(bearer(acct.key)), 404, 'not_found');
      expectError(await t.request().patch(`/v1/memories/${theirs.body.id}`).set(bearer(acct.key)).send({ importance: 1 }), 404, 'not_found');
      expectError(await t.request().delete(`/v1/memories/${theirs.body.id}`).set(bearer(acct.key)), 404, 'not_found');
      expectError(await t.request().get('/v1/memories/not-a-uuid').set(bearer(acct.key)), 404, 'not_found');
      for (const mode of ['semantic', 'keyword', 'hybrid']) {
        const s = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'secret plans of the other account', search_mode: mode });
        expect(s.body.data.map((d: { memory: { id: string } }) => d.memory.id)).not.toContain(theirs.body.id);
      }
    });
  });
});
