import { ensureAgent, bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const MISSING = '00000000-0000-4000-8000-000000000000';
const objectOf = (bytes: number) => ({ blob: 'x'.repeat(bytes - 11) });
const twentyTags = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(100, 'x'));

describe('decisions', () => {
  let t: TestApp;
  let acct: TestAccount;
  let slugCounter = 0;
  const freshSlug = (label = 'd') => `${label}-${++slugCounter}`;
  const req = () => t.request();
  const auth = () => bearer(acct.key);
  const create = (body: object, key = acct.key) => req().post('/v1/decisions').set(bearer(key)).send(body);
  const get = (id: string) => req().get(`/v1/decisions/${id}`).set(auth());
  const patch = (id: string, body: object, key = acct.key) => req().patch(`/v1/decisions/${id}`).set(bearer(key)).send(body);
  const supersede = (id: string, body: object, key = acct.key) => req().post(`/v1/decisions/${id}/supersede`).set(bearer(key)).send(body);
  const check = (body: object, key = acct.key) => req().post('/v1/decisions/check').set(bearer(key)).send(body);
  const invalid = (res: Parameters<typeof expectError>[0]) => expectError(res, 422, 'validation_error').details!.map((d) => d.field);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  describe('POST /v1/decisions', () => {
    it('creates a decision with every field', async () => {
      const session = await req().post('/v1/sessions').set(auth()).send({});
      const res = await create({
        title: 'Use Postgres',
        rationale: 'one engine for rows and vectors',
        alternatives: 'MySQL, a vector database',
        status: 'active',
        agent_id: 'architect',
        session_id: session.body.id,
        project_slug: 'core',
        tags: ['db', 'storage'],
        metadata: { k: 1 },
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        agent_id: await ensureAgent(t.ctx, acct.accountId, 'architect'),
        session_id: session.body.id,
        project_slug: 'core',
        title: 'Use Postgres',
        rationale: 'one engine for rows and vectors',
        alternatives: 'MySQL, a vector database',
        status: 'active',
        superseded_by: null,
        tags: ['db', 'storage'],
        metadata: { k: 1 },
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(await get(res.body.id).then((r) => r.body)).toEqual(res.body);
    });

    it('defaults: status active, optional fields null, tags [] and metadata {}', async () => {
      const res = await create({ title: 'Bare', rationale: 'r' });
      expect(res.body).toMatchObject({ status: 'active', agent_id: null, session_id: null, project_slug: null, alternatives: null, superseded_by: null, tags: [], metadata: {} });
    });

    it('creates experimental decisions; stores the embedding with the current model', async () => {
      const res = await create({ title: 'Try Bun', rationale: 'speed', status: 'experimental' });
      expect(res.body.status).toBe('experimental');
      const row = await t.ctx.db.knex('decisions').where({ id: res.body.id }).first('embedding_model', t.ctx.db.knex.raw('embedding IS NOT NULL AS embedded'));
      expect(row).toEqual({ embedding_model: t.ctx.embedder.model, embedded: true });
    });

    it('accepts the bounds: 500-char title, 50,000-char rationale and alternatives, 20 tags of 100 chars, 10 KB metadata', async () => {
      const res = await create({ title: 't'.repeat(500), rationale: 'r'.repeat(50_000), alternatives: 'a'.repeat(50_000), tags: twentyTags, metadata: objectOf(10_240) });
      expect(res.status).toBe(201);
      expect(res.body.tags).toHaveLength(20);
    });

    it.each([
      ['a missing title', { rationale: 'r' }, 'title'],
      ['a missing rationale', { title: 't' }, 'rationale'],
      ['an empty title', { title: '', rationale: 'r' }, 'title'],
      ['a whitespace rationale', { title: 't', rationale: '  \n ' }, 'rationale'],
      ['a 501-character title', { title: 't'.repeat(501), rationale: 'r' }, 'title'],
      ['a 50,001-character rationale', { title: 't', rationale: 'r'.repeat(50_001) }, 'rationale'],
      ['50,001-character alternatives', { title: 't', rationale: 'r', alternatives: 'a'.repeat(50_001) }, 'alternatives'],
      ['status superseded', { title: 't', rationale: 'r', status: 'superseded' }, 'status'],
      ['status reverted', { title: 't', rationale: 'r', status: 'reverted' }, 'status'],
      ['an unknown status', { title: 't', rationale: 'r', status: 'maybe' }, 'status'],
      ['21 tags', { title: 't', rationale: 'r', tags: [...twentyTags, 'one-more'] }, 'tags'],
      ['a 101-character tag', { title: 't', rationale: 'r', tags: ['ok', 'x'.repeat(101)] }, 'tags.1'],
      ['a non-string tag', { title: 't', rationale: 'r', tags: [7] }, 'tags.0'],
      ['a non-UUID session_id', { title: 't', rationale: 'r', session_id: 'nope' }, 'session_id'],
      ['a project_slug out of form', { title: 't', rationale: 'r', project_slug: 'Not A Slug' }, 'project_slug'],
      ['metadata of 10,241 bytes', { title: 't', rationale: 'r', metadata: objectOf(10_241) }, 'metadata'],
    ])('rejects %s with 422 naming the field', async (_label, body, field) => {
      expect(invalid(await create(body))).toContain(field);
    });

    it('answers 404 for an unknown, deleted or foreign session, and an unknown or foreign agent UUID', async () => {
      expectError(await create({ title: 't', rationale: 'r', session_id: MISSING }), 404, 'not_found');
      const s = await req().post('/v1/sessions').set(auth()).send({});
      await req().delete(`/v1/sessions/${s.body.id}`).set(auth());
      expectError(await create({ title: 't', rationale: 'r', session_id: s.body.id }), 404, 'not_found');
      const other = await createAccount(t.ctx);
      const theirSession = await req().post('/v1/sessions').set(bearer(other.key)).send({});
      expectError(await create({ title: 't', rationale: 'r', session_id: theirSession.body.id }), 404, 'not_found');
      expectError(await create({ title: 't', rationale: 'r', agent_id: MISSING }), 404, 'not_found');
      expectError(await create({ title: 't', rationale: 'r', agent_id: await ensureAgent(t.ctx, other.accountId, 'theirs') }), 404, 'not_found');
      const mine = await ensureAgent(t.ctx, acct.accountId, 'mine-by-uuid');
      expect((await create({ title: 't', rationale: 'r', agent_id: mine })).body.agent_id).toBe(mine);
    });

    it('needs write scope', async () => {
      expect(expectError(await create({ title: 't', rationale: 'r' }, await acct.keyWith(['read'])), 403, 'authorization_error').message).toBe(
        'Insufficient scope. Required: write',
      );
    });
  });

  describe('GET /v1/decisions', () => {
    it('lists newest first, filtered by project, status and tag', async () => {
      const slug = freshSlug('listing');
      const a = await create({ title: 'A', rationale: 'a', project_slug: slug, tags: ['x', 'y'] });
      const b = await create({ title: 'B', rationale: 'b', project_slug: slug, tags: ['y'], status: 'experimental' });
      await create({ title: 'C', rationale: 'c', project_slug: `${slug}-other`, tags: ['x'] });
      const gone = await create({ title: 'D', rationale: 'd', project_slug: slug, tags: ['x'] });
      await req().delete(`/v1/decisions/${gone.body.id}`).set(auth());

      const list = await req().get(`/v1/decisions?project_slug=${slug}`).set(auth());
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ data: [b.body, a.body], has_more: false, next_cursor: null, total_count: 2 });
      const titles = async (q: string) => (await req().get(`/v1/decisions?${q}`).set(auth())).body.data.map((d: { title: string }) => d.title);
      expect(await titles(`project_slug=${slug}&status=experimental`)).toEqual(['B']);
      expect(await titles(`project_slug=${slug}&status=active`)).toEqual(['A']);
      expect(await titles(`project_slug=${slug}&tag=x`)).toEqual(['A']);
      expect(await titles(`project_slug=${slug}&tag=y`)).toEqual(['B', 'A']);
      expect(await titles(`project_slug=${slug}&tag=z`)).toEqual([]);
    });

    it('pages with limit, offset and cursor', async () => {
      const slug = freshSlug('paging');
      for (const title of ['one', 'two', 'three']) await create({ title, rationale: 'r', project_slug: slug });
      const first = await req().get(`/v1/decisions?project_slug=${slug}&limit=2`).set(auth());
      expect(first.body).toMatchObject({ total_count: 3, has_more: true, next_cursor: expect.any(String) });
      expect(first.body.data.map((d: { title: string }) => d.title)).toEqual(['three', 'two']);
      const next = await req().get(`/v1/decisions?project_slug=${slug}&limit=2&cursor=${first.body.next_cursor}`).set(auth());
      expect(next.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(next.body.data.map((d: { title: string }) => d.title)).toEqual(['one']);
      expect((await req().get(`/v1/decisions?project_slug=${slug}&offset=2`).set(auth())).body.data.map((d: { title: string }) => d.title)).toEqual(['one']);
    });

    it.each([['status=maybe'], ['limit=0'], ['limit=101'], ['tag=' + 'x'.repeat(101)], ['project_slug=UPPER']])('rejects %s with 422', async (q) => {
      expectError(await req().get(`/v1/decisions?${q}`).set(auth()), 422, 'validation_error');
    });

    it("never lists another account's decisions", async () => {
      const other = await createAccount(t.ctx);
      await create({ title: 'Theirs', rationale: 't', project_slug: 'shared-slug' }, other.key);
      expect((await req().get('/v1/decisions?project_slug=shared-slug').set(auth())).body.total_count).toBe(0);
    });
  });

  describe('GET /v1/decisions/{id}', () => {
    it("answers 404 for unknown, non-UUID, deleted and foreign ids; needs read scope", async () => {
      expectError(await get(MISSING), 404, 'not_found');
      expectError(await get('not-a-uuid'), 404, 'not_found');
      const other = await createAccount(t.ctx);
      const theirs = await create({ title: 'Theirs', rationale: 't' }, other.key);
      expectError(await get(theirs.body.id), 404, 'not_found');
      const mine = await create({ title: 'Mine', rationale: 'm' });
      expect((await req().get(`/v1/decisions/${mine.body.id}`).set(bearer(await acct.keyWith(['read'])))).status).toBe(200);
      expectError(await req().get(`/v1/decisions/${mine.body.id}`).set(bearer(await acct.keyWith(['write']))), 403, 'authorization_error');
    });
  });

  describe('PATCH /v1/decisions/{id}', () => {
    it('updates text, replaces tags and merges metadata', async () => {
      const d = await create({ title: 'Old', rationale: 'old', tags: ['a'], metadata: { a: 1, b: 1 } });
      const res = await patch(d.body.id, { title: 'New', rationale: 'new', alternatives: 'none', tags: ['b', 'c'], metadata: { b: 2, c: 3 } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...d.body,
        title: 'New',
        rationale: 'new',
        alternatives: 'none',
        tags: ['b', 'c'],
        metadata: { a: 1, b: 2, c: 3 },
        updated_at: expect.stringMatching(ISO),
      });
      expect((await get(d.body.id)).body).toEqual(res.body);
    });

    it('re-embeds when the title or rationale changes, so check finds the new text', async () => {
      const slug = freshSlug('reembed');
      const d = await create({ title: 'Queue with RabbitMQ', rationale: 'RabbitMQ routes messages', project_slug: slug });
      await create({ title: 'Logs in Loki', rationale: 'Loki indexes labels', project_slug: slug });
      await patch(d.body.id, { title: 'Stream with Kafka', rationale: 'Kafka keeps an ordered log of events' });
      const res = await check({ query: 'kafka ordered events', project_slug: slug });
      expect(res.body.data[0].decision).toMatchObject({ id: d.body.id, title: 'Stream with Kafka' });
    });

    it.each([
      ['active', 'experimental'],
      ['active', 'reverted'],
      ['experimental', 'active'],
      ['experimental', 'reverted'],
      ['reverted', 'active'],
      ['reverted', 'experimental'],
      ['active', 'active'],
    ])('moves status from %s to %s', async (from, to) => {
      const d = await create({ title: 'Move', rationale: 'm', status: from === 'experimental' ? 'experimental' : 'active' });
      if (from === 'reverted') await patch(d.body.id, { status: 'reverted' });
      const res = await patch(d.body.id, { status: to });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(to);
      expect((await get(d.body.id)).body.status).toBe(to);
    });

    it('refuses status superseded with 409: only supersede sets it', async () => {
      const d = await create({ title: 'Not yet', rationale: 'n' });
      expect(expectError(await patch(d.body.id, { status: 'superseded' }), 409, 'conflict').message).toContain('supersede');
      expect((await get(d.body.id)).body).toMatchObject({ status: 'active', superseded_by: null });
    });

    it('refuses any status change of a superseded decision with 409; its text may still be edited', async () => {
      const d = await create({ title: 'Final', rationale: 'f' });
      const next = await supersede(d.body.id, { title: 'Successor', rationale: 's' });
      for (const status of ['active', 'experimental', 'reverted']) expectError(await patch(d.body.id, { status }), 409, 'conflict');
      const res = await patch(d.body.id, { title: 'Final (annotated)', status: 'superseded' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ title: 'Final (annotated)', status: 'superseded', superseded_by: next.body.id });
    });

    it.each([
      ['an empty body', {}],
      ['an unknown status', { status: 'sideways' }],
      ['an empty title', { title: '' }],
      ['a 501-character title', { title: 't'.repeat(501) }],
      ['a 50,001-character rationale', { rationale: 'r'.repeat(50_001) }],
      ['21 tags', { tags: [...twentyTags, 'x'] }],
      ['a project_slug (not patchable)', { project_slug: 'elsewhere' }],
      ['metadata of 10,241 bytes', { metadata: objectOf(10_241) }],
    ])('rejects %s with 422', async (_label, body) => {
      const d = await create({ title: 't', rationale: 'r' });
      expectError(await patch(d.body.id, body), 422, 'validation_error');
    });

    it('answers 404 for unknown, deleted and foreign decisions; needs write scope', async () => {
      expectError(await patch(MISSING, { title: 'x' }), 404, 'not_found');
      const d = await create({ title: 't', rationale: 'r' });
      expectError(await patch(d.body.id, { title: 'x' }, await acct.keyWith(['read'])), 403, 'authorization_error');
      await req().delete(`/v1/decisions/${d.body.id}`).set(auth());
      expectError(await patch(d.body.id, { title: 'x' }), 404, 'not_found');
      const other = await createAccount(t.ctx);
      const theirs = await create({ title: 'Theirs', rationale: 't' }, other.key);
      expectError(await patch(theirs.body.id, { title: 'mine' }), 404, 'not_found');
    });
  });

  describe('POST /v1/decisions/{id}/supersede', () => {
    it('creates an active successor inheriting project, agent and session; the old one points at it', async () => {
      const session = await req().post('/v1/sessions').set(auth()).send({});
      const old = await create({ title: 'REST', rationale: 'simple', project_slug: 'api', agent_id: 'arch', session_id: session.body.id, status: 'experimental', tags: ['old'] });
      const res = await supersede(old.body.id, { title: 'REST + webhooks', rationale: 'push events', alternatives: 'polling', tags: ['api'], metadata: { m: 1 } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        agent_id: old.body.agent_id,
        session_id: session.body.id,
        project_slug: 'api',
        title: 'REST + webhooks',
        rationale: 'push events',
        alternatives: 'polling',
        status: 'active',
        superseded_by: null,
        tags: ['api'],
        metadata: { m: 1 },
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect((await get(old.body.id)).body).toEqual({ ...old.body, status: 'superseded', superseded_by: res.body.id, updated_at: expect.stringMatching(ISO) });
      expect((await get(res.body.id)).body).toEqual(res.body);
    });

    it('uses the given project, agent and session instead of inheriting; defaults tags and metadata', async () => {
      const old = await create({ title: 'Old', rationale: 'o', project_slug: 'first', agent_id: 'first-agent', tags: ['t'], metadata: { a: 1 } });
      const session = await req().post('/v1/sessions').set(auth()).send({});
      const res = await supersede(old.body.id, { title: 'New', rationale: 'n', project_slug: 'second', agent_id: 'second-agent', session_id: session.body.id });
      expect(res.body).toMatchObject({
        project_slug: 'second',
        agent_id: await ensureAgent(t.ctx, acct.accountId, 'second-agent'),
        session_id: session.body.id,
        alternatives: null,
        tags: [],
        metadata: {},
      });
    });

    it('supersedes a reverted decision too', async () => {
      const d = await create({ title: 'Reverted', rationale: 'r' });
      await patch(d.body.id, { status: 'reverted' });
      expect((await supersede(d.body.id, { title: 'Replacement', rationale: 'r' })).status).toBe(201);
      expect((await get(d.body.id)).body.status).toBe('superseded');
    });

    it('refuses to supersede a superseded decision with 409, creating nothing', async () => {
      const d = await create({ title: 'Once', rationale: 'o' });
      const first = await supersede(d.body.id, { title: 'Twice?', rationale: 'r' });
      expect(expectError(await supersede(d.body.id, { title: 'Never stored', rationale: 'r' }), 409, 'conflict').message).toContain('superseded');
      expect(await t.ctx.db.knex('decisions').where({ account_id: acct.accountId, title: 'Never stored' })).toHaveLength(0);
      expect((await get(d.body.id)).body.superseded_by).toBe(first.body.id);
    });

    it('lets exactly one of 10 parallel supersedes win', async () => {
      const d = await create({ title: 'Contested', rationale: 'c' });
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => supersede(d.body.id, { title: `contender ${i}`, rationale: 'r' })));
      expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
      const winner = results.find((r) => r.status === 201)!;
      expect((await get(d.body.id)).body.superseded_by).toBe(winner.body.id);
      expect(await t.ctx.db.knex('decisions').where({ account_id: acct.accountId }).where('title', 'like', 'contender %')).toHaveLength(1);
    });

    it('leaves the old decision untouched when the successor is refused (unknown session)', async () => {
      const d = await create({ title: 'Stays', rationale: 's' });
      expectError(await supersede(d.body.id, { title: 'x', rationale: 'y', session_id: MISSING }), 404, 'not_found');
      expect((await get(d.body.id)).body).toMatchObject({ status: 'active', superseded_by: null });
    });

    it.each([
      ['a missing title', { rationale: 'r' }, 'title'],
      ['a missing rationale', { title: 't' }, 'rationale'],
      ['a 501-character title', { title: 't'.repeat(501), rationale: 'r' }, 'title'],
      ['a 50,001-character rationale', { title: 't', rationale: 'r'.repeat(50_001) }, 'rationale'],
      ['a status (always active)', { title: 't', rationale: 'r', status: 'experimental' }, 'status'],
      ['21 tags', { title: 't', rationale: 'r', tags: [...twentyTags, 'x'] }, 'tags'],
    ])('rejects %s with 422 naming the field', async (_label, body, field) => {
      const d = await create({ title: 't', rationale: 'r' });
      expect(invalid(await supersede(d.body.id, body))).toContain(field);
    });

    it('answers 404 for unknown, deleted and foreign decisions; needs write scope', async () => {
      expectError(await supersede(MISSING, { title: 'x', rationale: 'y' }), 404, 'not_found');
      const d = await create({ title: 'Gone', rationale: 'g' });
      expectError(await supersede(d.body.id, { title: 'x', rationale: 'y' }, await acct.keyWith(['read'])), 403, 'authorization_error');
      await req().delete(`/v1/decisions/${d.body.id}`).set(auth());
      expectError(await supersede(d.body.id, { title: 'x', rationale: 'y' }), 404, 'not_found');
      const other = await createAccount(t.ctx);
      const theirs = await create({ title: 'Theirs', rationale: 't' }, other.key);
      expectError(await supersede(theirs.body.id, { title: 'x', rationale: 'y' }), 404, 'not_found');
      expect((await req().get(`/v1/decisions/${theirs.body.id}`).set(bearer(other.key))).body.status).toBe('active');
    });
  });

  describe('POST /v1/decisions/check', () => {
    it('ranks decisions by similarity, scores in 0..1 descending, filtered by project', async () => {
      const slug = freshSlug('check');
      const redis = await create({ title: 'Cache sessions in Redis', rationale: 'Redis keeps session state fast', project_slug: slug });
      await create({ title: 'Write docs in Markdown', rationale: 'Markdown renders everywhere', project_slug: slug });
      await create({ title: 'Cache sessions in Memcached', rationale: 'Memcached keeps session state', project_slug: `${slug}-other` });
      const res = await check({ query: 'redis session cache', project_slug: slug });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'query', 'total']);
      expect(res.body).toMatchObject({ query: 'redis session cache', total: 2 });
      expect(res.body.data[0]).toEqual({ decision: redis.body, score: expect.any(Number) });
      const scores = res.body.data.map((d: { score: number }) => d.score);
      expect(scores[0]).toBeGreaterThan(scores[1]);
      for (const s of scores) expect(s >= 0 && s <= 1).toBe(true);
    });

    it('returns 5 by default and honours limit 1..100', async () => {
      const slug = freshSlug('check-limit');
      for (let i = 0; i < 7; i++) await create({ title: `Limit decision ${i}`, rationale: 'about limits', project_slug: slug });
      expect((await check({ query: 'limits', project_slug: slug })).body).toMatchObject({ total: 5 });
      expect((await check({ query: 'limits', project_slug: slug, limit: 1 })).body.data).toHaveLength(1);
      expect((await check({ query: 'limits', project_slug: slug, limit: 100 })).body.total).toBe(7);
    });

    it('leaves out deleted decisions, other accounts and vectors of another model', async () => {
      const slug = freshSlug('check-excl');
      const kept = await create({ title: 'Index with HNSW', rationale: 'HNSW graphs are fast', project_slug: slug });
      const deleted = await create({ title: 'Index with HNSW too', rationale: 'HNSW graphs', project_slug: slug });
      await req().delete(`/v1/decisions/${deleted.body.id}`).set(auth());
      const stale = await create({ title: 'Index with HNSW again', rationale: 'HNSW graphs', project_slug: slug });
      await t.ctx.db.knex('decisions').where({ id: stale.body.id }).update({ embedding_model: 'some-older-model' });
      const other = await createAccount(t.ctx);
      await create({ title: 'Index with HNSW', rationale: 'HNSW graphs are fast', project_slug: slug }, other.key);
      const res = await check({ query: 'HNSW index', project_slug: slug, limit: 10 });
      expect(res.body.data.map((d: { decision: { id: string } }) => d.decision.id)).toEqual([kept.body.id]);
    });

    it('finds its own decisions among many similar ones of other accounts', async () => {
      const crowd = await createAccount(t.ctx);
      for (let i = 0; i < 60; i++) await create({ title: `Crowded cache decision ${i}`, rationale: 'cache with redis' }, crowd.key);
      const lone = await createAccount(t.ctx);
      const mine = await create({ title: 'Crowded cache decision', rationale: 'cache with redis' }, lone.key);
      const res = await check({ query: 'cache with redis' }, lone.key);
      expect(res.body.data.map((d: { decision: { id: string } }) => d.decision.id)).toEqual([mine.body.id]);
    });

    it.each([
      ['a missing query', {}, 'query'],
      ['a whitespace query', { query: '   ' }, 'query'],
      ['a 10,001-character query', { query: 'q'.repeat(10_001) }, 'query'],
      ['limit 0', { query: 'q', limit: 0 }, 'limit'],
      ['limit 101', { query: 'q', limit: 101 }, 'limit'],
      ['a fractional limit', { query: 'q', limit: 2.5 }, 'limit'],
      ['a project_slug out of form', { query: 'q', project_slug: 'No Way' }, 'project_slug'],
    ])('rejects %s with 422 naming the field', async (_label, body, field) => {
      expect(invalid(await check(body))).toContain(field);
    });

    it('needs read scope only', async () => {
      expect((await check({ query: 'anything' }, await acct.keyWith(['read']))).status).toBe(200);
      expectError(await check({ query: 'anything' }, await acct.keyWith(['write'])), 403, 'authorization_error');
    });
  });

  describe('DELETE /v1/decisions/{id}', () => {
    it('soft-deletes: 204, then 404 and gone from lists', async () => {
      const slug = freshSlug('delete');
      const d = await create({ title: 'Gone', rationale: 'g', project_slug: slug });
      const res = await req().delete(`/v1/decisions/${d.body.id}`).set(auth());
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectError(await get(d.body.id), 404, 'not_found');
      expectError(await req().delete(`/v1/decisions/${d.body.id}`).set(auth()), 404, 'not_found');
      expect((await req().get(`/v1/decisions?project_slug=${slug}`).set(auth())).body.total_count).toBe(0);
      expect((await t.ctx.db.knex('decisions').where({ id: d.body.id }).first()).deleted_at).toBeInstanceOf(Date);
    });

    it("answers 404 for another account's decision; needs delete scope", async () => {
      const other = await createAccount(t.ctx);
      const theirs = await create({ title: 'Theirs', rationale: 't' }, other.key);
      expectError(await req().delete(`/v1/decisions/${theirs.body.id}`).set(auth()), 404, 'not_found');
      const d = await create({ title: 'Protected', rationale: 'p' });
      const res = await req().delete(`/v1/decisions/${d.body.id}`).set(bearer(await acct.keyWith(['read', 'write'])));
      expect(expectError(res, 403, 'authorization_error').message).toBe('Insufficient scope. Required: delete');
      expect((await get(d.body.id)).status).toBe(200);
    });
  });
});
