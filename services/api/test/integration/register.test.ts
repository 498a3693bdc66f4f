import { bearer, createTestApp, expectError, TestApp, testBackend, uniqueEmail } from '@ams/testing';

describe('POST /v1/auth/register', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('creates an account and a full-scope key shown once; the password is stored hashed', async () => {
    const email = uniqueEmail('reg');
    const res = await t.request().post('/v1/auth/register').send({ email, password: 'correct horse battery' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email, scopes: ['read', 'write', 'delete', 'admin'] });
    expect(res.body.api_key).toMatch(/^mem_[0-9A-Za-z]{40}$/);
    expect(res.body.account_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await t.request().get('/v1/api-keys').set(bearer(res.body.api_key))).status).toBe(200);
    const row = await t.ctx.db.knex('accounts').where({ id: res.body.account_id }).first();
    expect(row.password_hash).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(row.password_hash).not.toContain('correct horse');
  });

  it('answers 409 conflict for a taken email, whatever its case', async () => {
    const email = uniqueEmail('dup');
    expect((await t.request().post('/v1/auth/register').send({ email, password: 'password-1' })).status).toBe(201);
    const res = await t.request().post('/v1/auth/register').send({ email: email.toUpperCase(), password: 'password-2' });
    expectError(res, 409, 'conflict');
  });

  it.each([
    [{ email: 'not-an-email', password: 'long enough' }, 'email'],
    [{ password: 'long enough' }, 'email'],
    [{ email: 'a@example.com', password: 'short12' }, 'password'],
    [{ email: 'a@example.com', password: 'x'.repeat(129) }, 'password'],
    [{ email: 'a@example.com' }, 'password'],
    [{ email: 'a@example.com', password: 12345678 }, 'password'],
  ])('rejects %p with 422 on %s', async (body, field) => {
    const res = await t.request().post('/v1/auth/register').send(body);
    expect(expectError(res, 422, 'validation_error').details!.map((d) => d.field)).toEqual([field]);
  });

  it('accepts passwords of exactly 8 and 128 characters', async () => {
    for (const password of ['x'.repeat(8), 'y'.repeat(128)]) {
      const res = await t.request().post('/v1/auth/register').send({ email: uniqueEmail('len'), password });
      expect(res.status).toBe(201);
    }
  });

  it('is rate limited per IP', async () => {
    // One counter per backend: both jest projects run this file within the same minute and Redis.
    const limited = await createTestApp({ REGISTER_RATE_LIMIT_PER_MINUTE: '2', REDIS_KEY_PREFIX: `${process.env.REDIS_KEY_PREFIX}:reg:${testBackend()}` });
    try {
      const bad = { email: 'bad', password: 'x' };
      expect((await limited.request().post('/v1/auth/register').send(bad)).status).toBe(422);
      expect((await limited.request().post('/v1/auth/register').send(bad)).status).toBe(422);
      const res = await limited.request().post('/v1/auth/register').send(bad);
      expectError(res, 429, 'rate_limit_exceeded');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});
