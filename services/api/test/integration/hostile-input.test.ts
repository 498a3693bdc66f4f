import { createAccount, createTestApp, expectError, bearer, TestApp, TestAccount } from '@ams/testing';

/** Hostile input that must get a precise 4xx, never a 500. */
describe('hostile input never reaches the database as a 500', () => {
  let t: TestApp;
  let acct: TestAccount;
  const NUL = 'a\u0000b';
  const LONE = 'a\ud800b';
  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
    // Ordinary data that made numeric filters fail: a string and a number under the same key.
    for (const priority of ['high', 3, 7]) {
      const res = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: `priority ${priority}`, agent_id: 'fuzz', metadata: { priority } });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => t.close());

  const memoryCount = async () =>
    Number(((await t.ctx.db.knex('memories').where({ account_id: acct.accountId }).count({ n: '*' }).first()) as { n: string }).n);

  describe('D1/D2: NUL and unpaired surrogates are 422 naming the field', () => {
    it.each([
      ['content', { content: NUL, agent_id: 'fuzz' }, 'content'],
      ['agent_id', { content: 'ok', agent_id: NUL }, 'agent_id'],
      ['a metadata value', { content: 'ok', agent_id: 'fuzz', metadata: { note: LONE } }, 'metadata.note'],
      ['a nested metadata value', { content: 'ok', agent_id: 'fuzz', metadata: { a: [{ b: NUL }] } }, 'metadata.a.0.b'],
      ['a metadata key', { content: 'ok', agent_id: 'fuzz', metadata: { [NUL]: 1 } }, 'metadata'],
      ['content with a lone low surrogate', { content: 'x\udc00', agent_id: 'fuzz' }, 'content'],
    ])('POST /v1/memories with NUL/surrogate in %s', async (_what, body, field) => {
      const before = await memoryCount();
      const res = await t.request().post('/v1/memories').set(bearer(acct.key)).send(body);
      const err = expectError(res, 422, 'validation_error');
      expect(err.details!.map((d) => d.field)).toContain(field);
      expect(await memoryCount()).toBe(before);
    });

    it('keeps a well-formed surrogate pair (an emoji) as text', async () => {
      const res = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'emoji 😀', agent_id: 'fuzz', metadata: { e: '😀' } });
      expect(res.status).toBe(201);
      expect(res.body.content).toBe('emoji 😀');
    });

    it.each([
      ['POST /v1/memories/search', { query: NUL }, 'query'],
      ['POST /v1/memories/search', { query: 'x', metadata_filter: { k: LONE } }, 'metadata_filter.k'],
      ['POST /v2/context/build', { query: NUL }, 'query'],
      ['POST /v1/memories/batch', { memories: [{ content: 'ok' }, { content: NUL }] }, 'memories.1.content'],
      ['POST /v1/projects', { name: 'p', slug: 'p-nul', stack: { lang: NUL } }, 'stack.lang'],
    ])('%s rejects %j', async (route, body, field) => {
      const path = route.split(' ')[1]!;
      const res = await t.request().post(path).set(bearer(acct.key)).send(body);
      expect(expectError(res, 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
    });

    it('PATCH with a NUL changes nothing', async () => {
      const created = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'before', agent_id: 'fuzz' });
      const res = await t.request().patch(`/v1/memories/${created.body.id}`).set(bearer(acct.key)).send({ content: NUL });
      expectError(res, 422, 'validation_error');
      const after = await t.request().get(`/v1/memories/${created.body.id}`).set(bearer(acct.key));
      expect(after.body.content).toBe('before');
    });

    it.each(['/v1/memories?agent_id=a%00b', '/v1/decisions?tag=a%00', '/v1/sessions?project=%00', '/v1/patterns?category=x%00'])(
      'GET %s is 422 naming the parameter',
      async (url) => {
        const res = await t.request().get(url).set(bearer(acct.key));
        const field = url.split('?')[1]!.split('=')[0];
        expect(expectError(res, 422, 'validation_error').details!.map((d) => d.field)).toEqual([field]);
      },
    );

    it('a NUL in a path parameter is 422 on the path', async () => {
      const res = await t.request().get('/v1/projects/a%00b/context').set(bearer(acct.key));
      expect(expectError(res, 422, 'validation_error').details!.map((d) => d.field)).toEqual(['path']);
    });
  });

  describe('D3: comparison filters on keys holding mixed JSON types', () => {
    it.each([['$gt', 2, 2], ['$gte', 3, 2], ['$lt', 5, 1], ['$lte', 100, 2]])('%s %d matches only the numbers', async (op, value, hits) => {
      const res = await t.request()
        .post('/v1/memories/search')
        .set(bearer(acct.key))
        .send({ query: 'priority', search_mode: 'keyword', metadata_filter: { priority: { [op]: value } } });
      expect(res.status).toBe(200);
      expect(res.body.data ?? res.body.results).toHaveLength(hits);
    });

    it('a string comparison skips the numbers', async () => {
      const res = await t.request()
        .post('/v1/memories/search')
        .set(bearer(acct.key))
        .send({ query: 'priority', search_mode: 'keyword', metadata_filter: { priority: { $gte: 'a' } } });
      expect(res.status).toBe(200);
      expect(res.body.data ?? res.body.results).toHaveLength(1);
    });
  });

  describe('D4: $in', () => {
    it('matches any of its values', async () => {
      const res = await t.request()
        .post('/v1/memories/search')
        .set(bearer(acct.key))
        .send({ query: 'priority', search_mode: 'keyword', metadata_filter: { priority: { $in: ['high', 7, 'none'] } } });
      expect(res.status).toBe(200);
      expect(res.body.data ?? res.body.results).toHaveLength(2);
    });

    it('$nin excludes its values', async () => {
      const res = await t.request()
        .post('/v1/memories/search')
        .set(bearer(acct.key))
        .send({ query: 'priority', search_mode: 'keyword', metadata_filter: { priority: { $nin: ['high', 7] } } });
      expect(res.status).toBe(200);
      expect(res.body.data ?? res.body.results).toHaveLength(1);
    });

    it('1,000 values are one bind parameter, not a failure', async () => {
      const values = Array.from({ length: 1000 }, (_, i) => i + 100);
      const res = await t.request()
        .post('/v1/memories/search')
        .set(bearer(acct.key))
        .send({ query: 'priority', search_mode: 'keyword', metadata_filter: { priority: { $in: [...values, 3] } } });
      expect(res.status).toBe(422); // 1,001 values: over the cap
      const ok = await t.request()
        .post('/v1/memories/search')
        .set(bearer(acct.key))
        .send({ query: 'priority', search_mode: 'keyword', metadata_filter: { priority: { $in: [...values.slice(1), 3] } } });
      expect(ok.status).toBe(200);
      expect(ok.body.data ?? ok.body.results).toHaveLength(1);
    });

    it('65,000 values are 422 naming the filter', async () => {
      const res = await t.request()
        .post('/v1/memories/search')
        .set(bearer(acct.key))
        .send({ query: 'x', metadata_filter: { priority: { $in: Array.from({ length: 65_000 }, (_, i) => i) } } });
      const err = expectError(res, 422, 'validation_error');
      expect(err.details![0]!.field).toBe('metadata_filter.priority');
      expect(err.details![0]!.message).toMatch(/at most 1000 values/);
    });
  });

  describe('D5: deep nesting', () => {
    // Built as text: serialising 10,000 levels would overflow the test's own stack.
    const deepJson = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    const deep = (n: number) => JSON.parse(deepJson(n)) as unknown;
    const sendRaw = (path: string, json: string) =>
      t.request().post(path).set(bearer(acct.key)).set('Content-Type', 'application/json').send(json);
    it('a metadata_filter 10,000 levels deep is 422', async () => {
      const res = await sendRaw('/v1/memories/search', `{"query":"x","metadata_filter":{"k":${deepJson(10_000)}}}`);
      const err = expectError(res, 422, 'validation_error');
      expect(err.details![0]!.message).toMatch(/nested more than 32 levels/);
    });
    it('metadata 10,000 levels deep is 422 without leaking the stack overflow', async () => {
      const res = await sendRaw('/v1/memories', `{"content":"x","agent_id":"fuzz","metadata":${deepJson(10_000)}}`);
      expect(JSON.stringify(expectError(res, 422, 'validation_error'))).not.toMatch(/call stack/i);
    });
    it('metadata 20 levels deep is stored', async () => {
      const res = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'x', agent_id: 'fuzz', metadata: deep(20) });
      expect(res.status).toBe(201);
    });
  });

  describe('D6: malformed %-encoding', () => {
    it.each(['/v1/memories/%E0%A4%A', '/v1/projects/%ED%A0%80/context', '/v1/memories/%'])('GET %s is 400', async (url) => {
      const res = await t.request().get(url).set(bearer(acct.key));
      expectError(res, 400, 'bad_request');
    });
  });

  describe('lengths count characters (code points)', () => {
    it('accepts 50,000 emoji as content and refuses 50,001', async () => {
      const ok = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: '😀'.repeat(50_000), agent_id: 'fuzz' });
      expect(ok.status).toBe(201);
      const over = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: '😀'.repeat(50_001), agent_id: 'fuzz' });
      expect(expectError(over, 422, 'validation_error').details).toEqual([
        { field: 'content', message: 'content must be at most 50000 characters long' },
      ]);
    });
  });

  describe('numbers too small for a real column (found by the fuzz test)', () => {
    it('a min_importance of 1e-155 filters as 0', async () => {
      const res = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'priority', search_mode: 'keyword', min_importance: 1e-155 });
      expect(res.status).toBe(200);
    });
    it('an importance of 1e-155 is stored as 0', async () => {
      const res = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'tiny', agent_id: 'fuzz', importance: 1e-155 });
      expect(res.status).toBe(201);
      expect(res.body.importance).toBe(0);
    });
  });

  it('a create refused for an unknown session leaves no new agent behind (found by the fuzz test)', async () => {
    const agents = () => t.ctx.db.knex('agents').where({ account_id: acct.accountId, name: 'never-created' }).count({ n: '*' }).first();
    const res = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: 'x', agent_id: 'never-created', session_id: '00000000-0000-4000-8000-000000000000' });
    expectError(res, 404, 'not_found');
    expect(Number((await agents())!.n)).toBe(0);
  });

  describe('OPTIONS', () => {
    it('answers 204 with Allow for a known path', async () => {
      const res = await t.request().options('/v1/memories/3f1c1a4e-1111-4111-8111-111111111111');
      expect(res.status).toBe(204);
      // PUT: the PUT-as-PATCH route existing clients use.
      expect(res.headers.allow).toBe('DELETE, GET, HEAD, PATCH, PUT, OPTIONS');
    });
    it('answers the 404 envelope for an unknown path', async () => {
      const res = await t.request().options('/v1/nothing').set(bearer(acct.key));
      expectError(res, 404, 'not_found');
    });
  });
});
