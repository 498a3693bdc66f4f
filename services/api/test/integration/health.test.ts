import { VERSION } from '@ams/core';
import { createTestApp, testBackend } from '@ams/testing';

describe('GET /v1/health', () => {
  it('reports healthy with the database and Redis connected, without authentication', async () => {
    const t = await createTestApp();
    try {
      const res = await t.request().get('/v1/health');
      expect(res.status).toBe(200);
      // The mode follows the database: PGlite is the embedded mode.
      const mode = testBackend() === 'pglite' ? 'embedded' : 'split';
      expect(res.body).toMatchObject({ status: 'healthy', version: VERSION, database: 'connected', redis: 'connected', mode });
      expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
    } finally {
      await t.close();
    }
  });

  it('reports degraded with redis disconnected when Redis is unreachable, and still serves', async () => {
    const t = await createTestApp({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const res = await t.request().get('/v1/health');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'degraded', database: 'connected', redis: 'disconnected' });
    } finally {
      await t.close();
    }
  });

  it('reports degraded with 503 when the database is unreachable', async () => {
    const t = await createTestApp({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    try {
      const res = await t.request().get('/v1/health');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'degraded', database: 'disconnected', redis: 'connected' });
    } finally {
      await t.close();
    }
  });

  it('reports redis not_configured, and healthy, without REDIS_URL', async () => {
    const t = await createTestApp({}, { redis: null });
    try {
      const res = await t.request().get('/v1/health');
      expect(res.body).toMatchObject({ status: 'healthy', redis: 'not_configured' });
    } finally {
      await t.close();
    }
  });
});
