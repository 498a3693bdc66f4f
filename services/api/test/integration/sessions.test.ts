import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '../support/test-app';

describe('sessions', () => {
  let t: TestApp;
  let acct: TestAccount;
  const req = () => t.request();
  const auth = () => bearer(acct.key);
  const remember = (session_id: string, content: string, agent_id = 'writer') =>
    req().post('/v1/memories').set(auth()).send({ session_id, content, agent_id });

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('creates an active session with every field', async () => {
    const res = await req().post('/v1/sessions').set(auth()).send({ agent_id: 'planner', external_id: 'run-1', project: 'apollo', title: 'Planning', metadata: { k: 1 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      agent_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      external_id: 'run-1',
      project: 'apollo',
      status: 'active',
      title: 'Planning',
      summary: null,
      metadata: { k: 1 },
      memory_count: 0,
      started_at: expect.stringMatching(/Z$/),
      ended_at: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const empty = await req().post('/v1/sessions').set(auth()).send({});
    expect(empty.body).toMatchObject({ status: 'active', agent_id: null, external_id: null, title: null, metadata: {} });
    expectError(await req().post('/v1/sessions').set(auth()).send({ external_id: 'run-1' }), 409, 'conflict');
  });

  it.each([
    [{ title: 't'.repeat(501) }, 'title'],
    [{ external_id: 'e'.repeat(256) }, 'external_id'],
    [{ external_id: '' }, 'external_id'],
    [{ metadata: { blob: 'x'.repeat(10_231) } }, 'metadata'],
  ])('rejects %j with 422 on %s', async (body, field) => {
    expect(expectError(await req().post('/v1/sessions').set(auth()).send(body), 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
  });

  it('accepts a 500-character title and a 255-character external_id', async () => {
    expect((await req().post('/v1/sessions').set(auth()).send({ title: 't'.repeat(500), external_id: 'e'.repeat(255) })).status).toBe(201);
  });

  it('get-or-create: creates once, then returns the same session with its contributors', async () => {
    const first = await req().post('/v1/sessions/get-or-create').set(auth()).send({ external_id: 'shared-1', title: 'First title', agent_id: 'alice' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ created: true, contributors: [], title: 'First title' });
    await remember(first.body.id, 'alice was here', 'alice');
    await remember(first.body.id, 'bob was here', 'bob');
    const second = await req().post('/v1/sessions/get-or-create').set(auth()).send({ external_id: 'shared-1', title: 'Ignored' });
    expect(second.body).toMatchObject({ id: first.body.id, created: false, title: 'First title', memory_count: 2, contributors: ['alice', 'bob'] });
    expectError(await req().post('/v1/sessions/get-or-create').set(auth()).send({}), 422, 'validation_error');
  });

  it('get-or-create under concurrency: 20 parallel calls create exactly one session', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => req().post('/v1/sessions/get-or-create').set(auth()).send({ external_id: 'race-1' })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.body.created)).toHaveLength(1);
    const rows = await t.ctx.db.knex('sessions').where({ account_id: acct.accountId, external_id: 'race-1' });
    expect(rows).toHaveLength(1);
  });

  it('lists with filters and exact memory counts; get includes memories on request', async () => {
    const s = await req().post('/v1/sessions').set(auth()).send({ project: 'listing', agent_id: 'lister' });
    await remember(s.body.id, 'one');
    await remember(s.body.id, 'two');
    const gone = await remember(s.body.id, 'three');
    await req().delete(`/v1/memories/${gone.body.id}`).set(auth());
    const list = await req().get('/v1/sessions?project=listing&status=active').set(auth());
    expect(list.body).toMatchObject({ total_count: 1, has_more: false, next_cursor: null });
    expect(list.body).not.toHaveProperty('object');
    expect(list.body.data[0]).toMatchObject({ id: s.body.id, memory_count: 2 });
    expect((await req().get('/v1/sessions?agent_id=lister').set(auth())).body.total_count).toBe(1);
    expect((await req().get('/v1/sessions?project=listing&status=ended').set(auth())).body.total_count).toBe(0);
    expectError(await req().get('/v1/sessions?status=paused').set(auth()), 422, 'validation_error');
    const plain = await req().get(`/v1/sessions/${s.body.id}`).set(auth());
    expect(plain.body).not.toHaveProperty('memories');
    const full = await req().get(`/v1/sessions/${s.body.id}?include_memories=true`).set(auth());
    expect(full.body.memories.map((m: { content: string }) => m.content)).toEqual(['one', 'two']);
    expect(Number.isInteger(full.body.memories[0].created_at)).toBe(true);
  });

  it('ends an active session (summary stored, metadata merged); ending again is 409', async () => {
    const s = await req().post('/v1/sessions').set(auth()).send({ metadata: { a: 1 } });
    const ended = await req().post(`/v1/sessions/${s.body.id}/end`).set(auth()).send({ summary: 'done', metadata: { b: 2 } });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ status: 'ended', summary: 'done', metadata: { a: 1, b: 2 } });
    expect(ended.body.ended_at).toMatch(/Z$/);
    expectError(await req().post(`/v1/sessions/${s.body.id}/end`).set(auth()).send({}), 409, 'conflict');
    const long = await req().post('/v1/sessions').set(auth()).send({});
    expect(expectError(await req().post(`/v1/sessions/${long.body.id}/end`).set(auth()).send({ summary: 's'.repeat(50_001) }), 422, 'validation_error').details![0]!.field).toBe('summary');
    expect((await req().post(`/v1/sessions/${long.body.id}/end`).set(auth()).send({ summary: 's'.repeat(50_000) })).status).toBe(200);
  });

  it('summarizes from the memories, saves it, and gives "" for an empty session', async () => {
    const s = await req().post('/v1/sessions').set(auth()).send({});
    await remember(s.body.id, 'We chose PostgreSQL with pgvector for storage.');
    await remember(s.body.id, 'Redis holds only the queues and rate limits.');
    await remember(s.body.id, 'The embedding worker batches jobs.');
    const res = await req().post(`/v1/sessions/${s.body.id}/summarize`).set(auth());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ session_id: s.body.id, memory_count: 3 });
    expect(res.body.summary).toContain('PostgreSQL');
    expect(res.body.generated_at).toMatch(/Z$/);
    expect((await req().get(`/v1/sessions/${s.body.id}`).set(auth())).body.summary).toBe(res.body.summary);
    const empty = await req().post('/v1/sessions').set(auth()).send({});
    expect((await req().post(`/v1/sessions/${empty.body.id}/summarize`).set(auth())).body).toMatchObject({ summary: '', memory_count: 0 });
  });

  it('deletes softly; memories are kept unless cascade_memories=true', async () => {
    const keep = await req().post('/v1/sessions').set(auth()).send({});
    const kept = await remember(keep.body.id, 'survives');
    const res = await req().delete(`/v1/sessions/${keep.body.id}`).set(auth());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: keep.body.id, deleted: true, deleted_at: expect.stringMatching(/Z$/), cascade_memories: false });
    expect((await req().get(`/v1/memories/${kept.body.id}`).set(auth())).status).toBe(200);
    expectError(await req().get(`/v1/sessions/${keep.body.id}`).set(auth()), 404, 'not_found');
    const cascade = await req().post('/v1/sessions').set(auth()).send({});
    const doomed = await remember(cascade.body.id, 'goes too');
    const del = await req().delete(`/v1/sessions/${cascade.body.id}?cascade_memories=true`).set(auth());
    expect(del.body.cascade_memories).toBe(true);
    expectError(await req().get(`/v1/memories/${doomed.body.id}`).set(auth()), 404, 'not_found');
  });

  it("isolates accounts: another account's session is 404, also as a memory's session_id", async () => {
    const other = await createAccount(t.ctx);
    const theirs = await req().post('/v1/sessions').set(bearer(other.key)).send({});
    expectError(await req().get(`/v1/sessions/${theirs.body.id}`).set(auth()), 404, 'not_found');
    expectError(await req().post(`/v1/sessions/${theirs.body.id}/end`).set(auth()).send({}), 404, 'not_found');
    expectError(await remember(theirs.body.id, 'sneaky'), 404, 'not_found');
    expectError(await req().get('/v1/sessions/nope').set(auth()), 404, 'not_found');
    expect(expectError(await req().post('/v1/sessions').set(bearer(await acct.keyWith(['read']))).send({}), 403, 'authorization_error').message).toBe('Insufficient scope. Required: write');
  });
});
