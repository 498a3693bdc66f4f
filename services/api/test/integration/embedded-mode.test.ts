import { createPgliteDatabase, migrateLatest, pendingMigrations } from '@ams/db';
import { bootstrapAdminKey } from '@ams/accounts';
import { bearer, createTestApp, waitFor } from '@ams/testing';

/** Smoke test of the zero-setup default: PGlite + pgvector, no PostgreSQL server, no Redis. */
describe('embedded mode (PGlite)', () => {
  it('migrates, bootstraps one admin key, registers, reports health, and runs v2 through the in-process worker', async () => {
    const db = await createPgliteDatabase('memory://');
    await migrateLatest(db.knex);
    expect(await pendingMigrations(db.knex)).toEqual([]);
    // The in-process embedding worker, as npm start runs it.
    const t = await createTestApp({ DATABASE_URL: undefined, REDIS_URL: undefined }, { db, redis: null, ingestion: true });
    try {
      expect(t.ctx.config.mode).toBe('embedded');

      const key = await bootstrapAdminKey({ db: t.ctx.db.knex });
      expect(key).toMatch(/^mem_/);
      expect(await bootstrapAdminKey({ db: t.ctx.db.knex })).toBeUndefined(); // later starts print nothing
      expect((await t.request().get('/v1/api-keys').set(bearer(key!))).status).toBe(200);

      const health = await t.request().get('/v1/health');
      expect(health.body).toMatchObject({ status: 'healthy', database: 'connected', redis: 'not_configured', mode: 'embedded' });

      const reg = await t.request().post('/v1/auth/register').send({ email: 'embedded@example.com', password: 'password-123' });
      expect(reg.status).toBe(201);
      const vec = await db.knex.raw(`select '[1,0]'::vector <=> '[0,1]'::vector as d`);
      expect(vec.rows[0].d).toBeCloseTo(1);

      // v2 through the in-process worker, dedup included, on the same SQL as PostgreSQL.
      {
        const v2 = (body: object) => t.request().post('/v2/memories').set(bearer(reg.body.api_key)).send({ agent_id: 'emb', ...body });
        const first = await v2({ content: 'pglite embeds this asynchronously', webhook_url: 'https://hooks.example.com/x' });
        expect(first.body).toMatchObject({ status: 'pending', job_id: first.body.id });
        const second = await v2({ content: 'pglite embeds this asynchronously', deduplicate: true });
        const status = (id: string) => t.request().get(`/v2/memories/${id}/status`).set(bearer(reg.body.api_key));
        await waitFor(async () => (await status(second.body.id)).body.status === 'ready', 10_000);
        expect((await status(first.body.id)).body.status).toBe('ready');
        expect((await status(second.body.id)).body.duplicate_of).toBe(first.body.id);
        const search = await t.request().post('/v1/memories/search').set(bearer(reg.body.api_key)).send({ query: 'pglite asynchronously' });
        expect(search.body.data.map((d: { memory: { id: string } }) => d.memory.id)).toEqual([first.body.id]);
      }

      // v1 dedup takes the same per-agent advisory lock, inside its transaction, on PGlite too.
      const v1 = () => t.request().post('/v1/memories').set(bearer(reg.body.api_key)).send({ agent_id: 'emb-v1', content: 'pglite dedups in the request', deduplicate: true });
      const original = await v1();
      expect(original.status).toBe(201);
      expect((await v1()).body).toMatchObject({ is_duplicate: true, id: original.body.id });
    } finally {
      await t.close();
      await db.close();
    }
  }, 120_000);
});
