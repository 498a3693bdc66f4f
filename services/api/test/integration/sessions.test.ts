import { deleteMemoryRow, ensureAgent, insertMemory, bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const MISSING = '00000000-0000-4000-8000-000000000000';
/** Metadata of exactly `bytes` bytes when serialized: {"blob":"xxx…"} is 11 bytes plus the x's. */
const metadataOf = (bytes: number) => ({ blob: 'x'.repeat(bytes - 11) });

describe('sessions', () => {
  let t: TestApp;
  let acct: TestAccount;
  const req = () => t.request();
  const auth = () => bearer(acct.key);
  const create = (body: object, key = acct.key) => req().post('/v1/sessions').set(bearer(key)).send(body);
  const getOrCreate = (body: object, key = acct.key) => req().post('/v1/sessions/get-or-create').set(bearer(key)).send(body);
  /** The fields a 422 names. */
  const invalid = (res: Parameters<typeof expectError>[0]) => expectError(res, 422, 'validation_error').details!.map((d) => d.field);
  const memory = (sessionId: string, content: string, extra: { agentId?: string; createdAt?: Date } = {}) =>
    insertMemory(t.ctx, acct.accountId, { agentId: extra.agentId ?? 'writer', content, sessionId, createdAt: extra.createdAt });

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  describe('POST /v1/sessions', () => {
    it('creates an active session with every field, the agent named by name resolved to its UUID', async () => {
      const res = await create({ agent_id: 'planner', external_id: 'run-1', project: 'apollo', title: 'Planning', metadata: { k: 1 } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        agent_id: await ensureAgent(t.ctx, acct.accountId, 'planner'),
        external_id: 'run-1',
        project: 'apollo',
        status: 'active',
        title: 'Planning',
        summary: null,
        metadata: { k: 1 },
        memory_count: 0,
        started_at: expect.stringMatching(ISO),
        ended_at: null,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(res.body).not.toHaveProperty('created');
      expect(res.body).not.toHaveProperty('contributors');
    });

    it('creates the project a slug names, as every write naming a project does; free text stays a label', async () => {
      const projects = async () => (await t.request().get('/v1/projects?limit=100').set(bearer(acct.key))).body.data.map((p: { slug: string }) => p.slug);
      expect(await projects()).not.toContain('voyager');
      expect((await create({ project: 'voyager' })).status).toBe(201);
      expect((await getOrCreate({ external_id: 'gc-project', project: 'pioneer' })).status).toBe(200);
      expect(await projects()).toEqual(expect.arrayContaining(['voyager', 'pioneer']));
      const labelled = await create({ project: 'My Voyager App' });
      expect(labelled.body.project).toBe('My Voyager App');
      expect(await projects()).not.toContain('My Voyager App');
    });

    it('defaults every optional field: null text, {} metadata', async () => {
      const res = await create({});
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'active', agent_id: null, external_id: null, project: null, title: null, summary: null, metadata: {} });
    });

    it('takes an agent UUID of the account; an unknown or foreign agent UUID is 404', async () => {
      const agentId = await ensureAgent(t.ctx, acct.accountId, 'by-uuid');
      expect((await create({ agent_id: agentId })).body.agent_id).toBe(agentId);
      expectError(await create({ agent_id: MISSING }), 404, 'not_found');
      const other = await createAccount(t.ctx);
      expectError(await create({ agent_id: await ensureAgent(t.ctx, other.accountId, 'theirs') }), 404, 'not_found');
    });

    it('answers 409 for an external_id a live session holds; a deleted session frees it', async () => {
      const first = await create({ external_id: 'taken-1' });
      expectError(await create({ external_id: 'taken-1' }), 409, 'conflict');
      await req().delete(`/v1/sessions/${first.body.id}`).set(auth());
      expect((await create({ external_id: 'taken-1' })).status).toBe(201);
      const other = await createAccount(t.ctx);
      expect((await create({ external_id: 'taken-1' }, other.key)).status).toBe(201);
    });

    it('accepts the longest values: 500-char title, 255-char external_id and project, 10,240-byte metadata', async () => {
      const res = await create({ title: 't'.repeat(500), external_id: 'e'.repeat(255), project: 'p'.repeat(255), metadata: metadataOf(10_240) });
      expect(res.status).toBe(201);
      expect(res.body.title).toHaveLength(500);
    });

    it.each([
      ['a 501-character title', { title: 't'.repeat(501) }, 'title'],
      ['a 256-character external_id', { external_id: 'e'.repeat(256) }, 'external_id'],
      ['an empty external_id', { external_id: '' }, 'external_id'],
      ['a 256-character project', { project: 'p'.repeat(256) }, 'project'],
      ['metadata of 10,241 bytes', { metadata: metadataOf(10_241) }, 'metadata'],
      ['metadata that is an array', { metadata: ['not', 'an', 'object'] }, 'metadata'],
      ['a numeric title', { title: 42 }, 'title'],
      ['an empty agent_id', { agent_id: '' }, 'agent_id'],
    ])('rejects %s with 422 naming the field', async (_label, body, field) => {
      expect(invalid(await create(body))).toContain(field);
    });

    it('needs write scope', async () => {
      const res = await create({}, await acct.keyWith(['read']));
      expect(expectError(res, 403, 'authorization_error').message).toBe('Insufficient scope. Required: write');
    });
  });

  describe('POST /v1/sessions/get-or-create', () => {
    it('creates once with created true, then returns the same session with created false and its contributors', async () => {
      const first = await getOrCreate({ external_id: 'shared-1', title: 'First title', agent_id: 'alice', project: 'apollo', metadata: { a: 1 } });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ created: true, contributors: [], title: 'First title', project: 'apollo', metadata: { a: 1 }, memory_count: 0, status: 'active' });
      expect(first.body.agent_id).toBe(await ensureAgent(t.ctx, acct.accountId, 'alice'));
      await memory(first.body.id, 'alice was here', { agentId: 'alice', createdAt: new Date(Date.now() - 2000) });
      await memory(first.body.id, 'bob was here', { agentId: 'bob', createdAt: new Date(Date.now() - 1000) });
      await memory(first.body.id, 'alice again', { agentId: 'alice' });

      // title and metadata are used only when creating.
      const second = await getOrCreate({ external_id: 'shared-1', title: 'Ignored', metadata: { b: 2 } });
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ id: first.body.id, created: false, title: 'First title', metadata: { a: 1 }, memory_count: 3 });
      expect(second.body.contributors).toEqual(['alice', 'bob']);
    });

    it('counts only live memories and live agents as contributors', async () => {
      const s = await getOrCreate({ external_id: 'contributors-1' });
      const kept = await memory(s.body.id, 'kept', { agentId: 'keeper' });
      const gone = await memory(s.body.id, 'gone', { agentId: 'deleted-memory-author' });
      await memory(s.body.id, 'orphan', { agentId: 'deleted-agent' });
      await deleteMemoryRow(t.ctx, acct.accountId, gone.id);
      await t.ctx.db.knex('agents').where({ account_id: acct.accountId, name: 'deleted-agent' }).update({ deleted_at: new Date() });
      const again = await getOrCreate({ external_id: 'contributors-1' });
      expect(again.body.contributors).toEqual(['keeper']);
      expect(kept.agentId).toMatch(UUID);
    });

    it('returns an ended session as it is; after a delete the external_id makes a new session', async () => {
      const s = await getOrCreate({ external_id: 'lifecycle-1' });
      await req().post(`/v1/sessions/${s.body.id}/end`).set(auth()).send({});
      expect((await getOrCreate({ external_id: 'lifecycle-1' })).body).toMatchObject({ id: s.body.id, created: false, status: 'ended' });
      await req().delete(`/v1/sessions/${s.body.id}`).set(auth());
      const fresh = await getOrCreate({ external_id: 'lifecycle-1' });
      expect(fresh.body.created).toBe(true);
      expect(fresh.body.id).not.toBe(s.body.id);
    });

    it('creates exactly one session under 20 parallel calls', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => getOrCreate({ external_id: 'race-1', agent_id: 'racer' })));
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
      expect(results.filter((r) => r.body.created)).toHaveLength(1);
      expect(await t.ctx.db.knex('sessions').where({ account_id: acct.accountId, external_id: 'race-1' })).toHaveLength(1);
      expect(await t.ctx.db.knex('agents').where({ account_id: acct.accountId, name: 'racer' })).toHaveLength(1);
    });

    it('keeps accounts apart: the same external_id in two accounts is two sessions', async () => {
      const other = await createAccount(t.ctx);
      const mine = await getOrCreate({ external_id: 'both-accounts' });
      const theirs = await getOrCreate({ external_id: 'both-accounts' }, other.key);
      expect(theirs.body.created).toBe(true);
      expect(theirs.body.id).not.toBe(mine.body.id);
    });

    it.each([
      ['a missing external_id', {}, 'external_id'],
      ['an empty external_id', { external_id: '' }, 'external_id'],
      ['a 256-character external_id', { external_id: 'e'.repeat(256) }, 'external_id'],
      ['a 501-character title', { external_id: 'x', title: 't'.repeat(501) }, 'title'],
      ['metadata of 10,241 bytes', { external_id: 'x', metadata: metadataOf(10_241) }, 'metadata'],
    ])('rejects %s with 422 naming the field', async (_label, body, field) => {
      expect(invalid(await getOrCreate(body))).toContain(field);
    });

    it('accepts a 255-character external_id; needs write scope', async () => {
      expect((await getOrCreate({ external_id: 'g'.repeat(255) })).body.created).toBe(true);
      expectError(await getOrCreate({ external_id: 'x' }, await acct.keyWith(['read'])), 403, 'authorization_error');
    });
  });

  describe('GET /v1/sessions', () => {
    it('lists live sessions newest first with exact memory counts, filtered by agent, project and status', async () => {
      const a = await create({ project: 'listing', agent_id: 'lister' });
      const b = await create({ project: 'listing', agent_id: 'other-lister' });
      await memory(a.body.id, 'one');
      await memory(a.body.id, 'two');
      const gone = await memory(a.body.id, 'three');
      await deleteMemoryRow(t.ctx, acct.accountId, gone.id);
      await req().post(`/v1/sessions/${b.body.id}/end`).set(auth()).send({});
      const deleted = await create({ project: 'listing' });
      await req().delete(`/v1/sessions/${deleted.body.id}`).set(auth());

      const list = await req().get('/v1/sessions?project=listing').set(auth());
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ total_count: 2, has_more: false, next_cursor: null });
      expect(list.body).not.toHaveProperty('object');
      expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([b.body.id, a.body.id]);
      expect(list.body.data[1]).toEqual({ ...a.body, memory_count: 2 });
      expect(list.body.data[0].memory_count).toBe(0);

      const ids = async (q: string) => (await req().get(`/v1/sessions?${q}`).set(auth())).body.data.map((s: { id: string }) => s.id);
      expect(await ids('project=listing&status=active')).toEqual([a.body.id]);
      expect(await ids('project=listing&status=ended')).toEqual([b.body.id]);
      expect(await ids('agent_id=lister')).toEqual([a.body.id]);
      expect(await ids(`agent_id=${a.body.agent_id}`)).toEqual([a.body.id]);
      expect(await ids('agent_id=never-wrote-anything')).toEqual([]);
      expectError(await req().get(`/v1/sessions?agent_id=${MISSING}`).set(auth()), 404, 'not_found');
    });

    it('pages with limit, offset and cursor', async () => {
      const made = [];
      for (let i = 0; i < 3; i++) made.push((await create({ project: 'paging' })).body.id as string);
      const first = await req().get('/v1/sessions?project=paging&limit=2').set(auth());
      expect(first.body).toMatchObject({ total_count: 3, has_more: true, next_cursor: expect.any(String) });
      expect(first.body.data.map((s: { id: string }) => s.id)).toEqual([made[2], made[1]]);
      const next = await req().get(`/v1/sessions?project=paging&limit=2&cursor=${first.body.next_cursor}`).set(auth());
      expect(next.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(next.body.data.map((s: { id: string }) => s.id)).toEqual([made[0]]);
      const skipped = await req().get('/v1/sessions?project=paging&limit=1&offset=2').set(auth());
      expect(skipped.body.data.map((s: { id: string }) => s.id)).toEqual([made[0]]);
      expect((await req().get('/v1/sessions?limit=100').set(auth())).status).toBe(200);
    });

    it.each([['limit=0', 'limit'], ['limit=101', 'limit'], ['offset=-1', 'offset'], ['status=paused', 'status'], ['cursor=garbage', 'cursor']])(
      'rejects %s with 422',
      async (q, field) => {
        expect(invalid(await req().get(`/v1/sessions?${q}`).set(auth()))).toContain(field);
      },
    );

    it("never lists another account's sessions", async () => {
      const other = await createAccount(t.ctx);
      await create({ project: 'foreign-only' }, other.key);
      expect((await req().get('/v1/sessions?project=foreign-only').set(auth())).body.total_count).toBe(0);
    });
  });

  describe('GET /v1/sessions/{id}', () => {
    it('returns the session; memories only with include_memories=true, live ones in time order', async () => {
      const s = await create({ title: 'with memories' });
      const older = await memory(s.body.id, 'older', { createdAt: new Date('2026-01-01T00:00:00Z') });
      await memory(s.body.id, 'newer', { createdAt: new Date('2026-01-02T00:00:00Z') });
      const gone = await memory(s.body.id, 'deleted');
      await deleteMemoryRow(t.ctx, acct.accountId, gone.id);

      const plain = await req().get(`/v1/sessions/${s.body.id}`).set(auth());
      expect(plain.status).toBe(200);
      expect(plain.body).toEqual({ ...s.body, memory_count: 2 });
      expect((await req().get(`/v1/sessions/${s.body.id}?include_memories=false`).set(auth())).body).not.toHaveProperty('memories');

      const full = await req().get(`/v1/sessions/${s.body.id}?include_memories=true`).set(auth());
      expect(full.body.memories).toEqual([
        { id: older.id, content: 'older', created_at: Date.parse('2026-01-01T00:00:00Z') / 1000 },
        { id: expect.stringMatching(UUID), content: 'newer', created_at: Date.parse('2026-01-02T00:00:00Z') / 1000 },
      ]);
      const empty = await create({});
      expect((await req().get(`/v1/sessions/${empty.body.id}?include_memories=true`).set(auth())).body.memories).toEqual([]);
      expectError(await req().get(`/v1/sessions/${s.body.id}?include_memories=maybe`).set(auth()), 422, 'validation_error');
    });

    it("answers 404 for an unknown id, a non-UUID, a deleted session and another account's session", async () => {
      expectError(await req().get(`/v1/sessions/${MISSING}`).set(auth()), 404, 'not_found');
      expectError(await req().get('/v1/sessions/nope').set(auth()), 404, 'not_found');
      const deleted = await create({});
      await req().delete(`/v1/sessions/${deleted.body.id}`).set(auth());
      expectError(await req().get(`/v1/sessions/${deleted.body.id}`).set(auth()), 404, 'not_found');
      const other = await createAccount(t.ctx);
      const theirs = await create({}, other.key);
      expectError(await req().get(`/v1/sessions/${theirs.body.id}`).set(auth()), 404, 'not_found');
    });

    it('needs read scope only', async () => {
      const s = await create({});
      expect((await req().get(`/v1/sessions/${s.body.id}`).set(bearer(await acct.keyWith(['read'])))).status).toBe(200);
      expectError(await req().get(`/v1/sessions/${s.body.id}`).set(bearer(await acct.keyWith(['write']))), 403, 'authorization_error');
    });
  });

  describe('POST /v1/sessions/{id}/end', () => {
    it('ends an active session: status, ended_at, summary stored, metadata merged', async () => {
      const s = await create({ metadata: { a: 1, keep: 'yes' } });
      const ended = await req().post(`/v1/sessions/${s.body.id}/end`).set(auth()).send({ summary: 'done', metadata: { a: 2, b: 3 } });
      expect(ended.status).toBe(200);
      expect(ended.body).toEqual({
        ...s.body,
        status: 'ended',
        summary: 'done',
        metadata: { a: 2, keep: 'yes', b: 3 },
        ended_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(Date.parse(ended.body.ended_at)).toBeGreaterThanOrEqual(Date.parse(s.body.started_at));
      expect((await req().get(`/v1/sessions/${s.body.id}`).set(auth())).body).toMatchObject({ status: 'ended', summary: 'done' });
    });

    it('ends without a body, keeping summary and metadata', async () => {
      const s = await create({ metadata: { a: 1 } });
      const ended = await req().post(`/v1/sessions/${s.body.id}/end`).set(auth());
      expect(ended.status).toBe(200);
      expect(ended.body).toMatchObject({ status: 'ended', summary: null, metadata: { a: 1 } });
    });

    it('refuses to end an ended session with 409, leaving it unchanged', async () => {
      const s = await create({});
      const ended = await req().post(`/v1/sessions/${s.body.id}/end`).set(auth()).send({ summary: 'first' });
      expectError(await req().post(`/v1/sessions/${s.body.id}/end`).set(auth()).send({ summary: 'second' }), 409, 'conflict');
      expect((await req().get(`/v1/sessions/${s.body.id}`).set(auth())).body).toMatchObject({ summary: 'first', ended_at: ended.body.ended_at });
    });

    it('accepts a 50,000-character summary and rejects 50,001; metadata over 10 KB is 422', async () => {
      const s = await create({});
      expect(invalid(await req().post(`/v1/sessions/${s.body.id}/end`).set(auth()).send({ summary: 's'.repeat(50_001) }))).toEqual(['summary']);
      expect(invalid(await req().post(`/v1/sessions/${s.body.id}/end`).set(auth()).send({ metadata: metadataOf(10_241) }))).toEqual(['metadata']);
      expect((await req().post(`/v1/sessions/${s.body.id}/end`).set(auth()).send({ summary: 's'.repeat(50_000) })).status).toBe(200);
    });

    it('answers 404 for unknown, deleted and foreign sessions; needs write scope', async () => {
      expectError(await req().post(`/v1/sessions/${MISSING}/end`).set(auth()).send({}), 404, 'not_found');
      const deleted = await create({});
      await req().delete(`/v1/sessions/${deleted.body.id}`).set(auth());
      expectError(await req().post(`/v1/sessions/${deleted.body.id}/end`).set(auth()).send({}), 404, 'not_found');
      const other = await createAccount(t.ctx);
      const theirs = await create({}, other.key);
      expectError(await req().post(`/v1/sessions/${theirs.body.id}/end`).set(auth()).send({}), 404, 'not_found');
      expect((await req().get(`/v1/sessions/${theirs.body.id}`).set(bearer(other.key))).body.status).toBe('active');
      const s = await create({});
      expectError(await req().post(`/v1/sessions/${s.body.id}/end`).set(bearer(await acct.keyWith(['read']))).send({}), 403, 'authorization_error');
    });
  });

  describe('POST /v1/sessions/{id}/summarize', () => {
    it('keeps the memories closest to the centroid, in time order, and saves the summary', async () => {
      const s = await create({});
      const topical = [
        'We store memories in PostgreSQL with pgvector.',
        'PostgreSQL with pgvector answers the vector search.',
        'The pgvector index in PostgreSQL is HNSW.',
        'PostgreSQL migrations create the pgvector columns.',
        'Backups of PostgreSQL include the pgvector data.',
      ];
      const base = Date.parse('2026-03-01T00:00:00Z');
      await memory(s.body.id, 'Lunch was a pizza with olives.', { createdAt: new Date(base) });
      for (const [i, content] of topical.entries()) await memory(s.body.id, content, { createdAt: new Date(base + (i + 1) * 60_000) });

      const res = await req().post(`/v1/sessions/${s.body.id}/summarize`).set(auth());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ session_id: s.body.id, summary: expect.any(String), memory_count: 6, generated_at: expect.stringMatching(ISO) });
      expect(res.body.summary.split('\n')).toEqual(topical.map((c) => `- ${c}`));
      const after = await req().get(`/v1/sessions/${s.body.id}`).set(auth());
      expect(after.body).toMatchObject({ summary: res.body.summary, status: 'active' });
    });

    it('ignores deleted memories; an empty session summarizes to ""', async () => {
      const s = await create({});
      await memory(s.body.id, 'The only live memory.');
      const gone = await memory(s.body.id, 'A deleted secret.');
      await deleteMemoryRow(t.ctx, acct.accountId, gone.id);
      expect((await req().post(`/v1/sessions/${s.body.id}/summarize`).set(auth())).body).toMatchObject({ summary: '- The only live memory.', memory_count: 1 });
      const empty = await create({});
      expect((await req().post(`/v1/sessions/${empty.body.id}/summarize`).set(auth())).body).toMatchObject({ summary: '', memory_count: 0 });
    });

    it('summarizes an ended session without reopening it', async () => {
      const s = await create({});
      await memory(s.body.id, 'Wrapped up the release.');
      await req().post(`/v1/sessions/${s.body.id}/end`).set(auth()).send({ summary: 'by hand' });
      const res = await req().post(`/v1/sessions/${s.body.id}/summarize`).set(auth());
      expect(res.body.summary).toBe('- Wrapped up the release.');
      expect((await req().get(`/v1/sessions/${s.body.id}`).set(auth())).body).toMatchObject({ status: 'ended', summary: '- Wrapped up the release.' });
    });

    it('answers 404 for unknown and foreign sessions; needs write scope', async () => {
      expectError(await req().post(`/v1/sessions/${MISSING}/summarize`).set(auth()), 404, 'not_found');
      const other = await createAccount(t.ctx);
      const theirs = await create({}, other.key);
      expectError(await req().post(`/v1/sessions/${theirs.body.id}/summarize`).set(auth()), 404, 'not_found');
      const s = await create({});
      expectError(await req().post(`/v1/sessions/${s.body.id}/summarize`).set(bearer(await acct.keyWith(['read']))), 403, 'authorization_error');
    });
  });

  describe('DELETE /v1/sessions/{id}', () => {
    it('soft-deletes and keeps the memories by default', async () => {
      const s = await create({});
      const kept = await memory(s.body.id, 'survives');
      const res = await req().delete(`/v1/sessions/${s.body.id}`).set(auth());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: s.body.id, deleted: true, deleted_at: expect.stringMatching(ISO), cascade_memories: false });
      expectError(await req().get(`/v1/sessions/${s.body.id}`).set(auth()), 404, 'not_found');
      expectError(await req().delete(`/v1/sessions/${s.body.id}`).set(auth()), 404, 'not_found');
      const row = await t.ctx.db.knex('sessions').where({ id: s.body.id }).first();
      expect(row.deleted_at).toBeInstanceOf(Date);
      const mem = await t.ctx.db.knex('memories').where({ id: kept.id }).first();
      expect(mem).toMatchObject({ deleted_at: null, session_id: s.body.id });
    });

    it('with cascade_memories=true also soft-deletes its memories, and only those', async () => {
      const s = await create({});
      const neighbour = await create({});
      const doomed = await memory(s.body.id, 'goes too');
      const bystander = await memory(neighbour.body.id, 'stays');
      const res = await req().delete(`/v1/sessions/${s.body.id}?cascade_memories=true`).set(auth());
      expect(res.body).toMatchObject({ id: s.body.id, deleted: true, cascade_memories: true });
      const rows = await t.ctx.db.knex('memories').whereIn('id', [doomed.id, bystander.id]).select('id', 'deleted_at');
      const deletedAt = new Map(rows.map((r: { id: string; deleted_at: Date | null }) => [r.id, r.deleted_at]));
      expect(deletedAt.get(doomed.id)).toBeInstanceOf(Date);
      expect(deletedAt.get(bystander.id)).toBeNull();
      expect((await req().get(`/v1/sessions/${neighbour.body.id}`).set(auth())).body.memory_count).toBe(1);
      expectError(await req().delete(`/v1/sessions/${neighbour.body.id}?cascade_memories=maybe`).set(auth()), 422, 'validation_error');
    });

    it('answers 404 for foreign and non-UUID ids; needs delete scope', async () => {
      const other = await createAccount(t.ctx);
      const theirs = await create({}, other.key);
      expectError(await req().delete(`/v1/sessions/${theirs.body.id}`).set(auth()), 404, 'not_found');
      expect((await req().get(`/v1/sessions/${theirs.body.id}`).set(bearer(other.key))).status).toBe(200);
      expectError(await req().delete('/v1/sessions/not-a-uuid').set(auth()), 404, 'not_found');
      const s = await create({});
      const res = await req().delete(`/v1/sessions/${s.body.id}`).set(bearer(await acct.keyWith(['read', 'write'])));
      expect(expectError(res, 403, 'authorization_error').message).toBe('Insufficient scope. Required: delete');
      expect((await req().get(`/v1/sessions/${s.body.id}`).set(auth())).status).toBe(200);
    });
  });

  it('counts memories written through the memories API with a session_id; a foreign session_id there is 404', async () => {
    const s = await create({});
    const written = await req().post('/v1/memories').set(auth()).send({ session_id: s.body.id, content: 'via the API', agent_id: 'api-writer' });
    expect(written.status).toBe(201);
    expect((await req().get(`/v1/sessions/${s.body.id}`).set(auth())).body.memory_count).toBe(1);
    expect((await getOrCreate({ external_id: 'api-contrib' })).body.id).toMatch(UUID);
    const other = await createAccount(t.ctx);
    const theirs = await create({}, other.key);
    expectError(await req().post('/v1/memories').set(auth()).send({ session_id: theirs.body.id, content: 'sneaky', agent_id: 'x' }), 404, 'not_found');
  });
});
