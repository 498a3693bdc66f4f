import { createAccount, createTestApp, expectError, bearer, TestApp, TestAccount } from '@ams/testing';

describe('error envelope and body handling', () => {
  let t: TestApp;
  let acct: TestAccount;
  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  it('answers an unknown route with 404 not_found', async () => {
    const res = await t.request().get('/v1/nothing-here').set(bearer(acct.key));
    expectError(res, 404, 'not_found');
  });

  it('rejects malformed JSON with 400 bad_request', async () => {
    const res = await t.request().post('/v1/api-keys').set(bearer(acct.key)).set('Content-Type', 'application/json').send('{"name": ');
    expect(expectError(res, 400, 'bad_request').message).toMatch(/Malformed JSON/);
  });

  it.each([['[1,2]'], ['"text"'], ['42'], ['null']])('rejects the non-object JSON body %s with 400', async (raw) => {
    const res = await t.request().post('/v1/api-keys').set(bearer(acct.key)).set('Content-Type', 'application/json').send(raw);
    expect(expectError(res, 400, 'bad_request').message).toBe('Request body must be a JSON object');
  });

  it('rejects a body that is not declared as JSON with 400', async () => {
    const res = await t.request().post('/v1/api-keys').set(bearer(acct.key)).set('Content-Type', 'text/plain').send('name=x');
    expect(expectError(res, 400, 'bad_request').message).toBe('Content-Type must be application/json');
  });

  it('accepts a body of exactly 1 MiB and rejects one byte more with 413', async () => {
    const pad = (n: number) => JSON.stringify({ name: 'k', scopes: ['read'], pad: 'x'.repeat(n) });
    const base = pad(0).length;
    const exact = pad(1024 * 1024 - base);
    expect(Buffer.byteLength(exact)).toBe(1024 * 1024);
    const ok = await t.request().post('/v1/api-keys').set(bearer(acct.key)).set('Content-Type', 'application/json').send(exact);
    expect(ok.status).toBe(201); // parsed; the unknown `pad` is ignored (docs/clients.md, "Lenient input")
    const over = await t.request().post('/v1/api-keys').set(bearer(acct.key)).set('Content-Type', 'application/json').send(pad(1024 * 1024 - base + 1));
    expectError(over, 413, 'payload_too_large');
  });

  it('reports every validation failure with its field', async () => {
    const res = await t.request().post('/v1/api-keys').set(bearer(acct.key)).send({ name: '', scopes: ['root'] });
    const body = expectError(res, 422, 'validation_error');
    expect(body.details!.map((d) => d.field).sort()).toEqual(['name', 'scopes.0']);
  });

  it('turns an unexpected failure into 500 internal_error without internals', async () => {
    const broken = await createTestApp();
    await broken.ctx.db.close(); // every query now fails inside the driver
    const res = await broken.request().get('/v1/api-keys').set(bearer(acct.key));
    const body = expectError(res, 500, 'internal_error');
    expect(body.message).toBe('Internal server error');
    expect(JSON.stringify(res.body)).not.toMatch(/select|api_keys|at .*\.ts|Error:/i);
    await broken.close().catch(() => undefined);
  });
});
