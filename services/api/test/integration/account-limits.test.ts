import { bearer, createAccount, createTestApp, expectError, operatorKey, TestAccount, TestApp } from '@ams/testing';

/** What the database holds for the account, counted the slow way: what the counters must equal. */
async function counted(t: TestApp, accountId: string) {
  const { rows } = await t.ctx.db.knex.raw(
    `SELECT count(*) AS memories,
            coalesce(sum((embedding IS NOT NULL)::int + (embedding_next IS NOT NULL)::int), 0) AS vectors,
            coalesce(sum(octet_length(content) + octet_length(metadata::text)
                         + 4 * (coalesce(vector_dims(embedding), 0) + coalesce(vector_dims(embedding_next), 0))), 0) AS bytes
       FROM memories WHERE account_id = ? AND deleted_at IS NULL`,
    [accountId],
  );
  return { memories: Number(rows[0].memories), vectors: Number(rows[0].vectors), storage_bytes: Number(rows[0].bytes) };
}

describe('account limits (operator)', () => {
  let t: TestApp;
  let operator: string;
  let acct: TestAccount;
  const limitsOf = (id: string) => `/v1/admin/accounts/${id}/limits`;

  beforeAll(async () => {
    t = await createTestApp({ ACCOUNT_SEARCHES_PER_DAY: '0', ACCOUNT_FAIR_SHARE_WEIGHT: '1' });
    operator = await operatorKey(t.ctx);
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('shows the defaults, then what PUT and PATCH set; PUT clears what it omits, PATCH null restores a default', async () => {
    const first = await t.request().get(limitsOf(acct.accountId)).set(bearer(operator)).expect(200);
    expect(first.body).toMatchObject({ object: 'account_limits', account_id: acct.accountId, max_memories: 0, fair_share_weight: 1, overrides: { max_memories: null }, updated_at: null });

    const put = await t.request().put(limitsOf(acct.accountId)).set(bearer(operator)).send({ max_memories: 100, searches_per_day: 50, fair_share_weight: 2.5 }).expect(200);
    expect(put.body).toMatchObject({ max_memories: 100, searches_per_day: 50, fair_share_weight: 2.5, embeddings_per_day: 0, overrides: { max_memories: 100, embeddings_per_day: null } });

    const patch = await t.request().patch(limitsOf(acct.accountId)).set(bearer(operator)).send({ embeddings_per_day: 7, max_memories: null }).expect(200);
    expect(patch.body).toMatchObject({ max_memories: 0, searches_per_day: 50, embeddings_per_day: 7, fair_share_weight: 2.5, overrides: { max_memories: null, searches_per_day: 50 } });

    const again = await t.request().put(limitsOf(acct.accountId)).set(bearer(operator)).send({ requests_per_minute: 1000 }).expect(200);
    expect(again.body).toMatchObject({ requests_per_minute: 1000, searches_per_day: 0, embeddings_per_day: 0, fair_share_weight: 1 });
    await t.request().put(limitsOf(acct.accountId)).set(bearer(operator)).send({}).expect(200);
  });

  it.each([
    [{ max_memories: -1 }, 'max_memories'],
    [{ max_storage_bytes: 1.5 }, 'max_storage_bytes'],
    [{ requests_per_minute: '5' }, 'requests_per_minute'],
    [{ fair_share_weight: 0 }, 'fair_share_weight'],
    [{ fair_share_weight: -2 }, 'fair_share_weight'],
    [{ searches_per_day: 10, max_memory: 5 }, 'max_memory'],
  ])('refuses %j with 422 naming %s', async (body, field) => {
    for (const method of ['put', 'patch'] as const) {
      const res = await t.request()[method](limitsOf(acct.accountId)).set(bearer(operator)).send(body);
      const err = expectError(res, 422, 'validation_error');
      expect(err.details!.map((d: { field: string }) => d.field)).toContain(field);
    }
    // Nothing was written.
    const now = await t.request().get(limitsOf(acct.accountId)).set(bearer(operator)).expect(200);
    expect(now.body.overrides).toEqual({ max_memories: null, max_storage_bytes: null, requests_per_minute: null, searches_per_day: null, embeddings_per_day: null, fair_share_weight: null });
  });

  it('refuses an empty PATCH with 422', async () => {
    expectError(await t.request().patch(limitsOf(acct.accountId)).set(bearer(operator)).send({}), 422, 'validation_error');
  });

  it("refuses anyone but the operator's admin key with 403, and an unknown account with 404", async () => {
    const tenant = expectError(await t.request().put(limitsOf(acct.accountId)).set(bearer(acct.key)).send({ max_memories: 1000000 }), 403, 'authorization_error');
    expect(tenant.message).toContain('operator');
    expectError(await t.request().get(limitsOf(acct.accountId)).set(bearer(acct.key)), 403, 'authorization_error');
    expectError(await t.request().get(`/v1/admin/usage?account=${acct.accountId}`).set(bearer(acct.key)), 403, 'authorization_error');
    expectError(await t.request().get(limitsOf(acct.accountId)).set(bearer(await acct.keyWith(['read', 'write']))), 403, 'authorization_error');
    expectError(await t.request().get(limitsOf('00000000-0000-4000-8000-000000000000')).set(bearer(operator)), 404, 'not_found');
    expectError(await t.request().get('/v1/admin/usage?account=00000000-0000-4000-8000-000000000000').set(bearer(operator)), 404, 'not_found');
    expectError(await t.request().get('/v1/admin/usage?account=nope').set(bearer(operator)), 422, 'validation_error');
    expectError(await t.request().get(limitsOf('nope')).set(bearer(operator)), 404, 'not_found');
  });
});

describe('storage limits', () => {
  let t: TestApp;
  let operator: string;

  beforeAll(async () => {
    t = await createTestApp();
    operator = await operatorKey(t.ctx);
  });
  afterAll(() => t.close());

  const setLimits = (accountId: string, body: object) => t.request().patch(`/v1/admin/accounts/${accountId}/limits`).set(bearer(operator)).send(body).expect(200);
  const create = (key: string, content: string) => t.request().post('/v1/memories').set(bearer(key)).send({ agent_id: 'quota', content });

  it('refuses the create past max_memories with 403 quota_exceeded naming the limit and the usage; a delete makes room', async () => {
    const acct = await createAccount(t.ctx);
    await setLimits(acct.accountId, { max_memories: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(acct.key, `memory number ${i}`).expect(201)).body.id);
    const refused = expectError(await create(acct.key, 'one too many'), 403, 'quota_exceeded');
    expect(refused.message).toBe('Memory quota exceeded: max_memories is 3, and the account stores 3 memories');
    // v2 creates and batches are held to it too, a batch refused whole.
    expectError(await t.request().post('/v2/memories').set(bearer(acct.key)).send({ agent_id: 'quota', content: 'async' }), 403, 'quota_exceeded');
    await t.request().delete(`/v1/memories/${ids[0]}`).set(bearer(acct.key)).expect(204);
    const batch = await t.request().post('/v1/memories/batch').set(bearer(acct.key)).send({ memories: [{ content: 'b1', agent_id: 'quota' }, { content: 'b2', agent_id: 'quota' }] });
    expectError(batch, 403, 'quota_exceeded');
    expect((await counted(t, acct.accountId)).memories).toBe(2);
    await create(acct.key, 'fits again').expect(201);
    // A restore adds a memory back: held to the limit as well.
    expectError(await t.request().post(`/v1/memories/${ids[0]}/restore`).set(bearer(acct.key)), 403, 'quota_exceeded');
    expect(await counted(t, acct.accountId)).toMatchObject({ memories: 3 });
  });

  it('16 concurrent creates at the limit leave exactly the limit', async () => {
    const acct = await createAccount(t.ctx);
    await setLimits(acct.accountId, { max_memories: 5 });
    await create(acct.key, 'already here').expect(201);
    await create(acct.key, 'also here').expect(201);
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => create(acct.key, `racing create ${i}`)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of results.filter((r) => r.status !== 201)) expectError(r, 403, 'quota_exceeded');
    const db = await counted(t, acct.accountId);
    expect(db.memories).toBe(5);
    const usage = await t.request().get('/v1/usage').set(bearer(acct.key)).expect(200);
    expect(usage.body.memories).toEqual({ used: 5, limit: 5 });
    expect(usage.body.storage_bytes.used).toBe(db.storage_bytes);
  });

  it('refuses a write past max_storage_bytes, an update that grows the text included', async () => {
    const acct = await createAccount(t.ctx);
    const first = await create(acct.key, 'x'.repeat(100)).expect(201);
    const used = (await counted(t, acct.accountId)).storage_bytes;
    await setLimits(acct.accountId, { max_storage_bytes: used + 50 });
    const refused = expectError(await create(acct.key, 'y'.repeat(100)), 403, 'quota_exceeded');
    expect(refused.message).toMatch(new RegExp(`^Storage quota exceeded: max_storage_bytes is ${used + 50}, and the account stores ${used} bytes; this write needs \\d+ more$`));
    expectError(await t.request().patch(`/v1/memories/${first.body.id}`).set(bearer(acct.key)).send({ content: 'x'.repeat(400) }), 403, 'quota_exceeded');
    expect((await counted(t, acct.accountId)).storage_bytes).toBe(used);
    // A smaller write still fits; the limit back to unlimited lets anything in.
    await t.request().patch(`/v1/memories/${first.body.id}`).set(bearer(acct.key)).send({ content: 'short now' }).expect(200);
    await setLimits(acct.accountId, { max_storage_bytes: 0 });
    await create(acct.key, 'y'.repeat(1000)).expect(201);
  });
});

describe('rate limits per account', () => {
  let t: TestApp;
  let operator: string;

  beforeAll(async () => {
    t = await createTestApp();
    operator = await operatorKey(t.ctx);
  });
  afterAll(() => t.close());

  const setLimits = (accountId: string, body: object) => t.request().patch(`/v1/admin/accounts/${accountId}/limits`).set(bearer(operator)).send(body).expect(200);

  it('holds all keys of an account to requests_per_minute: 429 with Retry-After naming the limit', async () => {
    const acct = await createAccount(t.ctx);
    const other = await acct.keyWith(['read']);
    await setLimits(acct.accountId, { requests_per_minute: 3 });
    await t.request().get('/v1/agents').set(bearer(acct.key)).expect(200);
    await t.request().get('/v1/agents').set(bearer(other)).expect(200);
    await t.request().get('/v1/agents').set(bearer(acct.key)).expect(200);
    const res = await t.request().get('/v1/agents').set(bearer(other));
    const err = expectError(res, 429, 'rate_limit_exceeded');
    expect(err.message).toMatch(/^Rate limit exceeded: requests_per_minute is 3 for this account \(all its keys together\).* Retry in \d+ seconds\.$/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // The key's own rate headers are untouched by the account's budget.
    expect(res.headers['x-ratelimit-limit']).toBe('100000');
    // Another account is not held to it.
    const free = await createAccount(t.ctx);
    await t.request().get('/v1/agents').set(bearer(free.key)).expect(200);
  });

  it('refuses searches past searches_per_day with 429 and Retry-After until UTC midnight', async () => {
    const acct = await createAccount(t.ctx);
    await setLimits(acct.accountId, { searches_per_day: 2 });
    for (let i = 0; i < 2; i++) await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'anything' }).expect(200);
    const res = await t.request().post('/v2/context/build').set(bearer(acct.key)).send({ query: 'anything' });
    const err = expectError(res, 429, 'rate_limit_exceeded');
    expect(err.message).toMatch(/^Daily limit reached: searches_per_day is 2, and the account has used 2 searches today \(UTC\)\. Retry in \d+ seconds\.$/);
    const retry = Number(res.headers['retry-after']);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(86_400);
    // A failed search is not counted (a bad query is 422, not a spent search).
    await setLimits(acct.accountId, { searches_per_day: 3 });
    expectError(await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: '' }), 422, 'validation_error');
    await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'third' }).expect(200);
  });

  it('refuses embeddings past embeddings_per_day, a batch as a whole', async () => {
    const acct = await createAccount(t.ctx);
    await setLimits(acct.accountId, { embeddings_per_day: 3 });
    await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'e', content: 'one embedding' }).expect(201);
    const batch = await t.request().post('/v1/memories/batch').set(bearer(acct.key)).send({ memories: [{ content: 'a', agent_id: 'e' }, { content: 'b', agent_id: 'e' }, { content: 'c', agent_id: 'e' }] });
    const err = expectError(batch, 429, 'rate_limit_exceeded');
    expect(err.message).toMatch(/^Daily limit reached: embeddings_per_day is 3, and the account has used 1 embeddings today \(UTC\); this request needs 3\. Retry in \d+ seconds\.$/);
    expect(Number(batch.headers['retry-after'])).toBeGreaterThan(0);
    expect((await counted(t, acct.accountId)).memories).toBe(1);
    // A keyword search embeds nothing.
    await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'one', search_mode: 'keyword' }).expect(200);
    await t.request().post('/v1/embed').set(bearer(acct.key)).send({ texts: ['x', 'y'] }).expect(200);
    expectError(await t.request().post('/v1/embed').set(bearer(acct.key)).send({ text: 'z' }), 429, 'rate_limit_exceeded');
  });
});

describe('usage', () => {
  let t: TestApp;
  let operator: string;

  beforeAll(async () => {
    t = await createTestApp();
    operator = await operatorKey(t.ctx);
  });
  afterAll(() => t.close());

  it('equals the database exactly, after creates, updates, embeddings and deletes, for the account and the operator', async () => {
    const acct = await createAccount(t.ctx);
    const key = acct.key;
    const one = await t.request().post('/v1/memories').set(bearer(key)).send({ agent_id: 'u', content: 'billing starts here', metadata: { plan: 'pro', seats: 3 } }).expect(201);
    await t.request().post('/v1/memories/batch').set(bearer(key)).send({ memories: [1, 2, 3, 4].map((i) => ({ content: `batch item ${i}`, agent_id: 'u' })) }).expect(200);
    await t.request().post('/v2/memories').set(bearer(key)).send({ agent_id: 'u', content: 'embedded later or now' }).expect(202);
    await t.request().patch(`/v1/memories/${one.body.id}`).set(bearer(key)).send({ content: 'billing starts here, and grows a little', metadata: { plan: 'enterprise' } }).expect(200);
    const list = await t.request().get('/v1/memories?limit=100').set(bearer(key)).expect(200);
    const victims = (list.body.data as Array<{ id: string }>).slice(0, 2);
    for (const v of victims) await t.request().delete(`/v1/memories/${v.id}`).set(bearer(key)).expect(204);
    await t.request().post('/v1/memories/search').set(bearer(key)).send({ query: 'billing' }).expect(200);
    await t.request().post('/v1/memories/search').set(bearer(key)).send({ query: 'billing', search_mode: 'keyword' }).expect(200);

    const db = await counted(t, acct.accountId);
    expect(db.memories).toBe(4);
    const usage = await t.request().get('/v1/usage').set(bearer(key)).expect(200);
    expect(usage.body).toMatchObject({ object: 'usage', account_id: acct.accountId, memories: { used: db.memories, limit: null }, storage_bytes: { used: db.storage_bytes, limit: null }, vectors: { used: db.vectors } });
    // Requests so far: 9 above, and this usage request itself.
    const expected = { requests: 10, searches: 2, embeddings: 1 + 4 + 1 + 1 + 1 }; // creates, batch, v2, the new content, the semantic search
    expect(usage.body.requests).toMatchObject({ today: expected.requests, this_month: expected.requests });
    expect(usage.body.searches).toMatchObject({ today: expected.searches, this_month: expected.searches, limit_per_day: null });
    expect(usage.body.embeddings).toMatchObject({ today: expected.embeddings, this_month: expected.embeddings });

    // Flushed, the daily row holds the same figures (the operator's requests count to the operator's account).
    await t.ctx.usage.flushNow();
    const { rows } = await t.ctx.db.knex.raw(`SELECT requests, searches, embeddings FROM account_daily_usage WHERE account_id = ?`, [acct.accountId]);
    expect(rows.map((r: Record<string, unknown>) => ({ requests: Number(r.requests), searches: Number(r.searches), embeddings: Number(r.embeddings) }))).toEqual([expected]);

    const admin = await t.request().get(`/v1/admin/usage?account=${acct.accountId}`).set(bearer(operator)).expect(200);
    expect(admin.body).toMatchObject({ account_id: acct.accountId, memories: { used: 4 }, storage_bytes: { used: db.storage_bytes }, requests: { today: 10 } });

    // The counter row itself equals the tables.
    const { rows: counters } = await t.ctx.db.knex.raw(`SELECT memories, vectors, storage_bytes FROM account_usage WHERE account_id = ?`, [acct.accountId]);
    expect({ memories: Number(counters[0].memories), vectors: Number(counters[0].vectors), storage_bytes: Number(counters[0].storage_bytes) }).toEqual(db);
  });
});

describe('per-account metrics', () => {
  let t: TestApp;
  let operator: string;

  beforeAll(async () => {
    t = await createTestApp({ METRICS_TOP_ACCOUNTS: '1' });
    operator = await operatorKey(t.ctx);
  });
  afterAll(() => t.close());

  it('names only the top N accounts by requests today, the rest summed as account="other"', async () => {
    const busy = await createAccount(t.ctx);
    const quiet = await createAccount(t.ctx);
    for (let i = 0; i < 40; i++) await t.request().get('/v1/agents').set(bearer(busy.key)).expect(200);
    await t.request().post('/v1/memories/search').set(bearer(quiet.key)).send({ query: 'quiet' }).expect(200);
    await t.ctx.usage.flushNow();
    const text = (await t.request().get('/metrics').set(bearer(operator)).expect(200)).text;
    const series = text.split('\n').filter((l) => l.startsWith('ams_account_requests_today{'));
    // The busiest account by name, everyone else (the quiet one, the operator scraping) as "other".
    expect(series).toHaveLength(2);
    expect(series).toContain(`ams_account_requests_today{account="${busy.accountId}"} 40`);
    expect(series.find((l) => l.includes('account="other"'))).toBeDefined();
    expect(text).not.toContain(quiet.accountId);
    expect(text).toMatch(/^ams_account_searches_today\{account="other"\} [1-9]\d*$/m);
  });
});
