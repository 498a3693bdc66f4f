import { createTestApp, TestApp } from '@ams/testing';

describe('X-Request-ID', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('generates a request id when none is sent, on success and error responses', async () => {
    const ok = await t.request().get('/v1/health');
    expect(ok.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const err = await t.request().get('/v1/api-keys');
    expect(err.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(err.body.request_id).toBe(err.headers['x-request-id']);
    expect(err.headers['x-request-id']).not.toBe(ok.headers['x-request-id']);
  });

  it('echoes the client value and uses it in error bodies', async () => {
    const res = await t.request().get('/v1/api-keys').set('X-Request-ID', 'trace-abc.123');
    expect(res.headers['x-request-id']).toBe('trace-abc.123');
    expect(res.body.request_id).toBe('trace-abc.123');
  });

  it('accepts 200 characters and replaces 201', async () => {
    const ok = await t.request().get('/v1/health').set('X-Request-ID', 'a'.repeat(200));
    expect(ok.headers['x-request-id']).toBe('a'.repeat(200));
    const long = await t.request().get('/v1/health').set('X-Request-ID', 'a'.repeat(201));
    expect(long.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('replaces a value with control characters or spaces', async () => {
    const res = await t.request().get('/v1/health').set('X-Request-ID', 'bad\tvalue');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
