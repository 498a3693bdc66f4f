import { createDatabase, createPostgresDatabase, Database, dropPostgresDatabase, migrateLatest } from '../../src';
import { MIGRATIONS, Migration } from '../../src/migrations';

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

  const flaky: Migration = {
    name: '20991231_001_unreachable_once',
    up: [
      `DO $$ BEGIN
         IF nextval('migration_attempts') = 1 THEN
           RAISE EXCEPTION 'connection to the remote node ams@citus-worker-1:5432 failed' USING ERRCODE = '08006';
         END IF;
       END $$`,
    ],
  };

  it('tries a run again that found a node out of reach (a Citus worker not yet resolvable)', async () => {
    const db = dbs[0]!;
    // A sequence is not rolled back with the run: it counts the attempts.
    await db.knex.raw('CREATE SEQUENCE migration_attempts');
    expect(await migrateLatest(db.knex, [...MIGRATIONS, flaky])).toEqual([flaky.name]);
    const { rows } = await db.knex.raw(`SELECT last_value::int AS n FROM migration_attempts`);
    expect(rows[0].n).toBe(2);
  }, 60_000);

  it('fails a run on any other error at once', async () => {
    const broken: Migration = { name: '20991231_002_broken', up: ['SELECT * FROM no_such_table'] };
    await expect(migrateLatest(dbs[0]!.knex, [...MIGRATIONS, flaky, broken])).rejects.toMatchObject({ code: '42P01' });
  }, 60_000);
});
