import { createPgliteDatabase, migrateLatest, pendingMigrations } from '@ams/db';
import { bootstrapAdminKey } from '../../src/services/accounts.service';
import { bearer, createTestApp } from '../support/test-app';

/** Smoke test of the zero-setup default: PGlite + pgvector, no PostgreSQL server, no Redis. */
describe('embedded mode (PGlite)', () => {
  it('migrates, bootstraps one admin key, registers, and reports health', async () => {
    const db = await createPgliteDatabase('memory://');
    const t = await createTestApp({ DATABASE_URL: undefined, REDIS_URL: undefined }, { db, redis: null });
    try {
      await migrateLatest(db.knex);
      expect(await pendingMigrations(db.knex)).toEqual([]);
      expect(t.ctx.config.mode).toBe('embedded');

      const key = await bootstrapAdminKey(t.ctx);
      expect(key).toMatch(/^mem_/);
      expect(await bootstrapAdminKey(t.ctx)).toBeUndefined(); // later starts print nothing
      expect((await t.request().get('/v1/api-keys').set(bearer(key!))).status).toBe(200);

      const health = await t.request().get('/v1/health');
      expect(health.body).toMatchObject({ status: 'healthy', database: 'connected', redis: 'not_configured', mode: 'embedded' });

      const reg = await t.request().post('/v1/auth/register').send({ email: 'embedded@example.com', password: 'password-123' });
      expect(reg.status).toBe(201);
      const vec = await db.knex.raw(`select '[1,0]'::vector <=> '[0,1]'::vector as d`);
      expect(vec.rows[0].d).toBeCloseTo(1);
    } finally {
      await t.close();
      await db.close();
    }
  }, 60_000);
});
