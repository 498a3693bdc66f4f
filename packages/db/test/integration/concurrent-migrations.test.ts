import { createDatabase, createPostgresDatabase, Database, dropPostgresDatabase, migrateLatest } from '../../src';
import { MIGRATIONS } from '../../src/migrations';

/**
 * Services started together on an empty database (docker-compose starts two APIs, two workers and
 * the dispatcher at once) each migrate at start-up: they must all succeed, one applying the
 * migrations and the others finding nothing pending.
 */
describe('migrations run by several processes at once', () => {
  const admin = new URL(process.env.DATABASE_URL!);
  const name = `${admin.pathname.slice(1)}_concurrent_migrations`;
  admin.pathname = '/postgres';
  let dbs: Database[] = [];
  afterAll(async () => {
    await Promise.all(dbs.map((db) => db.close()));
    await dropPostgresDatabase(admin.toString(), name);
  });

  it('applies each migration once on a fresh database, every run succeeding', async () => {
    const url = await createPostgresDatabase(admin.toString(), name, {});
    dbs = await Promise.all(Array.from({ length: 4 }, () => createDatabase({ databaseUrl: url, dataDir: '', dbPoolMax: 3 })));
    const applied = await Promise.all(dbs.map((db) => migrateLatest(db.knex)));
    expect(applied.flat().sort()).toEqual(MIGRATIONS.map((m) => m.name).sort());
    const { rows } = await dbs[0]!.knex.raw('SELECT count(*)::int AS n FROM knex_migrations');
    expect(rows[0].n).toBe(MIGRATIONS.length);
  }, 180_000);
});
