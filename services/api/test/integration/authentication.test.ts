import { apiKeysRepository } from '@ams/db';
import { hashApiKey } from '@ams/accounts';
import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp } from '@ams/testing';

describe('authentication', () => {
  let t: TestApp;
  let acct: TestAccount;
  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('accepts the key as a Bearer token and as X-API-Key', async () => {
    expect((await t.request().get('/v1/api-keys').set(bearer(acct.key))).status).toBe(200);
    expect((await t.request().get('/v1/api-keys').set('X-API-Key', acct.key)).status).toBe(200);
  });

  it('rejects a missing key with 401 unauthorized naming both headers', async () => {
    const body = expectError(await t.request().get('/v1/api-keys'), 401, 'unauthorized');
    expect(body.message).toMatch(/Authorization: Bearer/);
  });

  it.each([['mem_doesnotexist0000000000000000000000000'], ['not-a-key'], ['']])('rejects the invalid key %p', async (key) => {
    const res = await t.request().get('/v1/api-keys').set('Authorization', `Bearer ${key}`);
    expectError(res, 401, 'unauthorized');
  });

  it('rejects a malformed Authorization header', async () => {
    expectError(await t.request().get('/v1/api-keys').set('Authorization', `Basic ${acct.key}`), 401, 'unauthorized');
  });

  it('rejects an expired key with a message saying it has expired', async () => {
    const key = await acct.keyWith(['read'], { expiresAt: new Date(Date.now() + 1000) });
    const row = await apiKeysRepository.findByHash(t.ctx.db.knex, hashApiKey(key));
    await t.ctx.db.knex('api_keys').where({ id: row!.id }).update({ expires_at: new Date(Date.now() - 1000) });
    const body = expectError(await t.request().get('/v1/api-keys').set(bearer(key)), 401, 'unauthorized');
    expect(body.message).toBe('API key has expired');
  });

  it('checks authentication before validation: a bad body without a key gets 401', async () => {
    const res = await t.request().post('/v1/api-keys').set('Content-Type', 'application/json').send('{broken');
    expectError(res, 401, 'unauthorized');
  });

  it('stores only the SHA-256 of a key', async () => {
    const rows = await t.ctx.db.knex('api_keys').where({ account_id: acct.accountId });
    for (const row of rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(acct.key);
    }
    expect(rows.some((r) => r.key_hash === hashApiKey(acct.key))).toBe(true);
  });
});
