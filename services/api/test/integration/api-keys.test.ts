import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp, waitFor } from '@ams/testing';

describe('API keys (/v1/api-keys)', () => {
  let t: TestApp;
  let acct: TestAccount;
  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('creates a key, shows it once, and the key works with exactly its scopes', async () => {
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const res = await t.request().post('/v1/api-keys').set(bearer(acct.key)).send({ name: 'ci', scopes: ['read'], expires_at: expiresAt });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'api_key', name: 'ci', scopes: ['read'], expires_at: expiresAt, revoked_at: null });
    expect(res.body.key).toMatch(/^mem_[0-9A-Za-z]{40}$/);
    expect(res.body.key_prefix).toBe(res.body.key.slice(0, 12));
    const forbidden = await t.request().get('/v1/api-keys').set(bearer(res.body.key));
    expect(expectError(forbidden, 403, 'authorization_error').message).toBe('Insufficient scope. Required: admin');
  });

  it('lists keys without the raw key or its hash', async () => {
    const created = await t.request().post('/v1/api-keys').set(bearer(acct.key)).send({ name: 'listed', scopes: ['read', 'write'] });
    const res = await t.request().get('/v1/api-keys').set(bearer(acct.key));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(res.body.total_count).toBe(res.body.data.length);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(created.body.key);
    expect(text).not.toContain('key_hash');
    expect(res.body.data.map((k: { id: string }) => k.id)).toContain(created.body.id);
  });

  it('pages with limit, offset and cursor, newest first', async () => {
    const other = await createAccount(t.ctx);
    for (let i = 0; i < 4; i++) {
      await t.request().post('/v1/api-keys').set(bearer(other.key)).send({ name: `k${i}`, scopes: ['read'] });
    }
    const first = await t.request().get('/v1/api-keys?limit=2').set(bearer(other.key));
    expect(first.body).toMatchObject({ total_count: 5, has_more: true });
    expect(first.body.data.map((k: { name: string }) => k.name)).toEqual(['k3', 'k2']);
    const second = await t.request().get(`/v1/api-keys?limit=2&cursor=${first.body.next_cursor}`).set(bearer(other.key));
    expect(second.body.data.map((k: { name: string }) => k.name)).toEqual(['k1', 'k0']);
    const byOffset = await t.request().get('/v1/api-keys?limit=2&offset=4').set(bearer(other.key));
    expect(byOffset.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(byOffset.body.data).toHaveLength(1);
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ offset: '-1' }, 'offset'],
    [{ cursor: 'garbage' }, 'cursor'],
  ])('rejects the list query %p with 422 on %s', async (query, field) => {
    const res = await t.request().get('/v1/api-keys').query(query).set(bearer(acct.key));
    expect(expectError(res, 422, 'validation_error').details!.map((d) => d.field)).toEqual([field]);
  });

  it('accepts limit 1 and 100 (the bounds)', async () => {
    for (const limit of [1, 100]) {
      expect((await t.request().get(`/v1/api-keys?limit=${limit}`).set(bearer(acct.key))).status).toBe(200);
    }
  });

  it.each([
    [{ scopes: ['read'] }, 'name'],
    [{ name: 'x', scopes: [] }, 'scopes'],
    [{ name: 'x', scopes: ['superuser'] }, 'scopes.0'],
    [{ name: 'x', scopes: ['read'], expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
    [{ name: 'x', scopes: ['read'], expires_at: 'tomorrow' }, 'expires_at'],
    // Past the shared date range (PGlite once answered 500 where PostgreSQL stored it).
    [{ name: 'x', scopes: ['read'], expires_at: '+275760-09-13T00:00:00.000Z' }, 'expires_at'],
    [{ name: 'x', scopes: ['read'], expires_at: '10000-01-01T00:00:00Z' }, 'expires_at'],
    [{ name: 'x'.repeat(256), scopes: ['read'] }, 'name'],
    [{ name: 'x', scopes: ['read'], agent_id: 'not-a-uuid' }, 'agent_id'],
  ])('rejects the create body %p with 422 on %s', async (body, field) => {
    const res = await t.request().post('/v1/api-keys').set(bearer(acct.key)).send(body);
    expect(expectError(res, 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
  });

  it('answers 404 for an agent_id the account does not have', async () => {
    const res = await t.request().post('/v1/api-keys').set(bearer(acct.key)).send({ name: 'x', scopes: ['read'], agent_id: '00000000-0000-4000-8000-000000000000' });
    expectError(res, 404, 'not_found');
  });

  it('revokes a key: it stops working at once with 401, and revoking again is 404', async () => {
    const created = await t.request().post('/v1/api-keys').set(bearer(acct.key)).send({ name: 'tmp', scopes: ['admin'] });
    expect((await t.request().get('/v1/api-keys').set(bearer(created.body.key))).status).toBe(200);
    expect((await t.request().delete(`/v1/api-keys/${created.body.id}`).set(bearer(acct.key))).status).toBe(204);
    const body = expectError(await t.request().get('/v1/api-keys').set(bearer(created.body.key)), 401, 'unauthorized');
    expect(body.message).toBe('API key has been revoked');
    expectError(await t.request().delete(`/v1/api-keys/${created.body.id}`).set(bearer(acct.key)), 404, 'not_found');
    expectError(await t.request().delete('/v1/api-keys/not-a-uuid').set(bearer(acct.key)), 404, 'not_found');
  });

  it('a key revoked by another process (straight in the database) stops working within API_KEY_CACHE_MS', async () => {
    const short = await createTestApp({ API_KEY_CACHE_MS: '200' }, { db: t.ctx.db });
    try {
      const created = await t.request().post('/v1/api-keys').set(bearer(acct.key)).send({ name: 'elsewhere', scopes: ['read'] });
      // Used once, so this process holds its row.
      expect((await short.request().get('/v1/agents').set(bearer(created.body.key))).status).toBe(200);
      await t.ctx.db.knex('api_keys').where({ id: created.body.id }).update({ revoked_at: new Date() });
      let last: { status: number; body: { message?: string } } = { status: 0, body: {} };
      await waitFor(async () => {
        last = await short.request().get('/v1/agents').set(bearer(created.body.key));
        return last.status === 401;
      }, 5_000, 'revoked key refused');
      expect(last.body.message).toBe('API key has been revoked');
    } finally {
      await short.close();
    }
  });

  it('with API_KEY_CACHE_MS=0 every request reads the key: a revocation anywhere stops it at once', async () => {
    const uncached = await createTestApp({ API_KEY_CACHE_MS: '0' });
    try {
      const other = await createAccount(uncached.ctx);
      expect((await uncached.request().get('/v1/agents').set(bearer(other.key))).status).toBe(200);
      await uncached.ctx.db.knex('api_keys').where({ account_id: other.accountId }).update({ revoked_at: new Date() });
      expectError(await uncached.request().get('/v1/agents').set(bearer(other.key)), 401, 'unauthorized');
    } finally {
      await uncached.close();
    }
  });

  it("cannot see or revoke another account's keys", async () => {
    const other = await createAccount(t.ctx);
    const created = await t.request().post('/v1/api-keys').set(bearer(other.key)).send({ name: 'theirs', scopes: ['read'] });
    const mine = await t.request().get('/v1/api-keys?limit=100').set(bearer(acct.key));
    expect(mine.body.data.map((k: { id: string }) => k.id)).not.toContain(created.body.id);
    expectError(await t.request().delete(`/v1/api-keys/${created.body.id}`).set(bearer(acct.key)), 404, 'not_found');
  });
});

describe('scopes', () => {
  let t: TestApp;
  let acct: TestAccount;
  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it.each([[['read']], [['write']], [['delete']], [['read', 'write', 'delete']]] as const)(
    'a key with %p gets 403 on admin endpoints',
    async (scopes) => {
      const key = await acct.keyWith([...scopes]);
      const res = await t.request().get('/v1/api-keys').set(bearer(key));
      expect(expectError(res, 403, 'authorization_error').message).toBe('Insufficient scope. Required: admin');
    },
  );

  it('admin implies every scope', async () => {
    const key = await acct.keyWith(['admin']);
    const res = await t.request().post('/v1/api-keys').set(bearer(key)).send({ name: 'x', scopes: ['read', 'write', 'delete'] });
    expect(res.status).toBe(201);
  });
});
