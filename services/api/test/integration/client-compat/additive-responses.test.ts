import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

/** docs/clients.md, "Additive response members": members added beside the spec's, where an addition satisfies the client. */
describe('additive response members for existing clients', () => {
  let t: TestApp;
  let acct: TestAccount;
  const req = () => t.request();
  const auth = () => bearer(acct.key);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('health keeps the spec members and adds the typed ones clients require (H1)', async () => {
    const res = await req().get('/v1/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'healthy', version: expect.any(String), database: 'connected', redis: expect.any(String) });
    expect(res.body).toMatchObject({
      api_version: expect.any(String),
      environment: expect.any(String),
      services: { database: 'up', redis: expect.any(String), embeddings: 'up' },
      embedding_info: { dimension: t.ctx.embedder.dimensions },
    });
    expect(Number.isInteger(res.body.timestamp)).toBe(true);
    expect(Math.abs(res.body.timestamp - Date.now() / 1000)).toBeLessThan(3_600);
    expect(Number.isInteger(res.body.uptime_seconds)).toBe(true);
    for (const v of Object.values(res.body.services)) expect(typeof v).toBe('string');
  });

  it('entities carry type beside entity_type on create, get, list and update (E1)', async () => {
    const created = await req().post('/v1/entities').set(auth()).send({ name: 'Lisbon', type: 'place' });
    expect(created.body).toMatchObject({ entity_type: 'location', type: 'location' });
    expect((await req().get(`/v1/entities/${created.body.id}`).set(auth())).body.type).toBe('location');
    const list = await req().get('/v1/entities').set(auth());
    for (const e of list.body.data) expect(e.type).toBe(e.entity_type);
    const patched = await req().patch(`/v1/entities/${created.body.id}`).set(auth()).send({ entity_type: 'concept' });
    expect(patched.body).toMatchObject({ entity_type: 'concept', type: 'concept' });
  });

  it('search items keep memory and score, with flat copies, similarity and category (S1)', async () => {
    await req().post('/v1/memories').set(auth()).send({ content: 'Kafka topics are compacted weekly', agent_id: 'flat', metadata: { category: 'ops' } });
    const res = await req().post('/v1/memories/search').set(auth()).send({ query: 'Kafka topics compacted', agent_id: 'flat' });
    const item = res.body.data[0];
    expect(item).toMatchObject({
      id: item.memory.id,
      content: item.memory.content,
      agent_id: item.memory.agent_id,
      metadata: { category: 'ops' },
      created_at: item.memory.created_at,
      updated_at: item.memory.updated_at,
      similarity: item.score,
      category: 'ops',
    });
    expect(item.score).toBeGreaterThanOrEqual(0);
    expect(item.score).toBeLessThanOrEqual(1);
  });

  it('batch results carry success, error on failures, and timing.avg_per_item_ms, all numeric (B1)', async () => {
    const res = await req()
      .post('/v1/memories/batch')
      .set(auth())
      .send({ memories: [{ content: 'ok item', agent_id: 'batcher' }, { content: 'bad session', agent_id: 'batcher', session_id: '00000000-0000-4000-8000-000000000000' }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, total: 2, succeeded: 1, failed: 1 });
    expect(res.body.results[0]).toMatchObject({ index: 0, status: 'success', success: true });
    expect(res.body.results[0]).not.toHaveProperty('error');
    expect(res.body.results[1]).toMatchObject({ index: 1, status: 'failed', success: false, error: 'Session not found' });
    expect(res.body.timing.avg_per_item_ms).toBe(res.body.timing.per_memory_avg_ms);
    for (const v of Object.values(res.body.timing)) expect(typeof v).toBe('number');
  });

  it('errors carry detail and error beside message, and keep the details array (ERR)', async () => {
    const notFound = await req().get('/v1/memories/00000000-0000-4000-8000-000000000000').set(auth());
    const body = expectError(notFound, 404, 'not_found') as { message: string; detail?: string; error?: string };
    expect(body.detail).toBe(body.message);
    expect(body.error).toBe(body.message);
    const invalid = await req().post('/v1/memories/search').set(auth()).send({ query: '' });
    expect(invalid.body).toMatchObject({ message: 'Request validation failed', detail: 'Request validation failed', error: 'Request validation failed' });
    expect(invalid.body.details).toEqual([{ field: 'query', message: expect.any(String) }]);
    const unauthorized = await req().get('/v1/memories');
    expect(unauthorized.body.detail).toBe(unauthorized.body.message);
  });

  it('context build keeps context a string and adds memories, token_count, ranking_version, ai_enhanced, latency_ms (CB)', async () => {
    await req().post('/v1/memories').set(auth()).send({ content: 'Deploys happen on Tuesdays', agent_id: 'cb' });
    const res = await req().post('/v2/context/build').set(auth()).send({ query: 'deploys Tuesdays', agent_id: 'cb', threshold: 0 });
    expect(res.status).toBe(200);
    expect(typeof res.body.context).toBe('string');
    expect(res.body).toMatchObject({ memories_used: 1, total_chars: res.body.context.length, ai_enhanced: false, ranking_version: expect.any(String) });
    expect(res.body).not.toHaveProperty('summary');
    expect(res.body.memories).toEqual([
      { memory_id: expect.any(String), id: expect.any(String), content: 'Deploys happen on Tuesdays', score: expect.any(Number), memory_type: expect.any(String) },
    ]);
    expect(Number.isInteger(res.body.token_count)).toBe(true);
    expect(Number.isInteger(res.body.latency_ms)).toBe(true);
  });

  it('memory metadata is an object, never null, on get, list and search (META, AGT)', async () => {
    const created = await req().post('/v1/memories').set(auth()).send({ content: 'No metadata given', agent_id: 'meta', metadata: null });
    expect(created.body.metadata).toEqual({});
    const list = await req().get('/v1/memories?agent_id=meta').set(auth());
    for (const m of list.body.data) {
      expect(m.metadata).toEqual(expect.any(Object));
      expect(typeof m.agent_id).toBe('string');
    }
  });

  it('a v2 create reports an integral estimated_completion_seconds (V2); DELETE stays 204 (DEL)', async () => {
    const res = await req().post('/v2/memories').set(auth()).send({ content: 'async one', agent_id: 'v2c', user_id: null, metadata: null });
    expect(res.status).toBe(202);
    expect(Number.isInteger(res.body.estimated_completion_seconds) || res.body.estimated_completion_seconds === null).toBe(true);
    const del = await req().delete(`/v1/memories/${res.body.id}`).set(auth());
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
  });
});
