import pg from 'pg';
import { createDatabase, createPostgresDatabase, Database, dropPostgresDatabase, migrateLatest } from '../../src';
import { MIGRATIONS, Migration } from '../../src/migrations';

/**
 * The dynamic half of the lock check (the static half: test/unit/migration-lock-hazards.test.ts).
 * Each migration is applied by migrateLatest, as a starting service applies it, while sessions run
 * the services' kind of reads and writes on the tables it names, each with lock_timeout = 1 s: a
 * statement of the load that waits more than a second on a lock fails, and so does the test, naming
 * the migration and the statement. The tables are small, so a scan holds its lock briefly here;
 * the static check is what catches a statement whose lock lasts as long as a large table's scan.
 * A table's row count does not change what the bad migration below does: its index expression
 * takes 10 ms a row, so building it over the 300 seeded memories takes 3 s, as a large table would.
 */
const LOAD_SESSIONS = 3;
const SEEDED_MEMORIES = 300;

/** An index expression as slow as a large table: IMMUTABLE (so it may be indexed) and 10 ms a row. */
const SLOW_FUNCTION = `CREATE OR REPLACE FUNCTION lock_test_slow(t text) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT t || pg_sleep(0.01)::text $$`;
const concurrentIndex: Migration = {
  name: '20991231_001_lock_test_concurrent_index',
  transaction: false,
  up: [SLOW_FUNCTION, 'DROP INDEX CONCURRENTLY IF EXISTS memories_lock_test_idx', 'CREATE INDEX CONCURRENTLY memories_lock_test_idx ON memories (lock_test_slow(content))'],
};
const blockingIndex: Migration = {
  name: '20991231_002_lock_test_blocking_index',
  up: ['CREATE INDEX memories_lock_test_blocking_idx ON memories (lock_test_slow(content))'],
};

interface Seed {
  accountId: string;
  agentId: string;
  memoryIds: string[];
}

/** A probe run in a transaction rolled back after it. */
const ROLLBACK_AFTER = '/* rolled back */ ';

/** The load's statements on `table` (a generic read and write-lock probe for any table it names). */
function statementsFor(table: string, seed: Seed): Array<[string, unknown[]]> {
  const probes: Array<[string, unknown[]]> = [
    [`SELECT * FROM ${table} LIMIT 1`, []],
    // Takes the lock any write takes (ROW EXCLUSIVE), whatever the table's columns.
    [`DELETE FROM ${table} WHERE false`, []],
  ];
  if (table === 'memories') {
    const id = () => seed.memoryIds[Math.floor(Math.random() * seed.memoryIds.length)];
    probes.push(
      // Rolled back (ROLLBACK_AFTER): the table keeps its seeded rows, so an index build over them
      // takes as long at the end of the run as at its start.
      [`${ROLLBACK_AFTER}INSERT INTO memories (account_id, agent_id, content, memory_type, tier) VALUES ($1, $2, $3, 'fact', 'hot')`, [seed.accountId, seed.agentId, `load ${Math.random()}`]],
      [`UPDATE memories SET importance = 0.6 WHERE account_id = $1 AND id = $2`, [seed.accountId, id()]],
      [`SELECT id FROM memories WHERE account_id = $1 AND content_tsv @@ plainto_tsquery('english', 'harbour') LIMIT 10`, [seed.accountId]],
    );
  }
  if (table === 'accounts') probes.push([`UPDATE accounts SET updated_at = now() WHERE id = $1`, [seed.accountId]]);
  return probes;
}

/** Sessions running the load on `tables` until stopped; returns what waited more than a second. */
async function underLoad(url: string, tables: string[], seed: Seed, run: () => Promise<unknown>): Promise<string[]> {
  const waited: string[] = [];
  let stop = false;
  const session = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`SET lock_timeout = '1s'`);
    try {
      for (let i = 0; !stop; i++) {
        for (const table of tables) {
          for (const [sql, params] of statementsFor(table, seed)) {
            if (stop) return;
            const rollback = sql.startsWith(ROLLBACK_AFTER);
            try {
              if (rollback) await client.query('BEGIN');
              await client.query(sql, params);
            } catch (err) {
              if ((err as { code?: string }).code !== '55P03') throw err;
              waited.push(sql.replace(ROLLBACK_AFTER, '').split(' WHERE')[0]!);
            } finally {
              if (rollback) await client.query('ROLLBACK');
            }
          }
        }
      }
    } finally {
      await client.end();
    }
  };
  const sessions = tables.length ? Array.from({ length: LOAD_SESSIONS }, session) : [];
  try {
    await run();
  } finally {
    stop = true;
    await Promise.all(sessions);
  }
  return waited;
}

/** The tables that exist now and that the migration's SQL names. */
async function tablesNamedBy(db: Database, migration: Migration): Promise<string[]> {
  const { rows } = await db.knex.raw(`SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename NOT LIKE 'knex_%'`);
  const sql = migration.up.join('\n');
  return rows.map((r: { tablename: string }) => r.tablename).filter((t: string) => new RegExp(`\\b${t}\\b`).test(sql));
}

async function seed(db: Database): Promise<Seed> {
  const { rows: accounts } = await db.knex.raw(`INSERT INTO accounts (email) VALUES ('locks@example.com') RETURNING id`);
  const accountId = accounts[0].id;
  const { rows: agents } = await db.knex.raw(`INSERT INTO agents (account_id, name) VALUES (?, 'locks') RETURNING id`, [accountId]);
  const agentId = agents[0].id;
  const { rows } = await db.knex.raw(
    `INSERT INTO memories (account_id, agent_id, content, memory_type, tier)
     SELECT ?, ?, 'the harbour log, entry ' || n, 'fact', 'hot' FROM generate_series(1, ${SEEDED_MEMORIES}) n RETURNING id`,
    [accountId, agentId],
  );
  return { accountId, agentId, memoryIds: rows.map((r: { id: string }) => r.id) };
}

// On Citus the distribution step (030) moves the tables' rows to the workers, by design before any
// service runs: the check runs on PostgreSQL.
const onPostgres = process.env.TEST_BACKEND === 'citus' ? describe.skip : describe;

onPostgres('migrations applied while the services read and write (dynamic check)', () => {
  const admin = new URL(process.env.DATABASE_URL!);
  const name = `${admin.pathname.slice(1)}_migration_locks`;
  admin.pathname = '/postgres';
  let db: Database;
  let url: string;
  let seeded: Seed | undefined;
  beforeAll(async () => {
    url = await createPostgresDatabase(admin.toString(), name, {});
    db = await createDatabase({ databaseUrl: url, dataDir: '', dbPoolMax: 3 });
  });
  afterAll(async () => {
    await db?.close();
    await dropPostgresDatabase(admin.toString(), name);
  });

  it('no statement of the load waits a second on any migration', async () => {
    const waited: string[] = [];
    for (let i = 0; i < MIGRATIONS.length; i++) {
      const migration = MIGRATIONS[i]!;
      const apply = () => migrateLatest(db.knex, MIGRATIONS.slice(0, i + 1));
      if (!seeded) {
        await apply();
        if ((await tablesNamedBy(db, { name: '', up: ['memories'] })).length) seeded = await seed(db);
        continue;
      }
      const tables = await tablesNamedBy(db, migration);
      waited.push(...(await underLoad(url, tables, seeded, apply)).map((s) => `${migration.name}: ${s}`));
    }
    expect(seeded).toBeDefined();
    expect(waited).toEqual([]);
  }, 180_000);

  it('passes an index built CONCURRENTLY (a migration without a transaction), and fails one built without', async () => {
    expect(seeded).toBeDefined();
    const concurrent = await underLoad(url, ['memories'], seeded!, () => migrateLatest(db.knex, [...MIGRATIONS, concurrentIndex]));
    expect(concurrent).toEqual([]);
    const { rows } = await db.knex.raw(`SELECT indisvalid FROM pg_index WHERE indexrelid = 'memories_lock_test_idx'::regclass`);
    expect(rows[0].indisvalid).toBe(true);

    const blocking = await underLoad(url, ['memories'], seeded!, () => migrateLatest(db.knex, [...MIGRATIONS, concurrentIndex, blockingIndex]));
    expect(blocking.length).toBeGreaterThan(0);
    // The writes waited on the build's SHARE lock; the reads went on.
    expect(blocking.filter((statement) => !/^(INSERT INTO|UPDATE|DELETE FROM) memories\b/.test(statement))).toEqual([]);
  }, 120_000);
});
