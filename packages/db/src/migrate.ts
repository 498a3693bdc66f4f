import type { Knex } from 'knex';
import { setTimeout as delay } from 'node:timers/promises';
import { ConfigError } from '@ams/core';
import { isDatabaseUnavailable } from './db-errors';
import { MIGRATIONS, Migration } from './migrations';

/** Knex's migrator, fed from the static list instead of the file system. */
class StaticMigrationSource implements Knex.MigrationSource<Migration> {
  constructor(private readonly migrations: readonly Migration[]) {}
  async getMigrations(): Promise<Migration[]> {
    return [...this.migrations];
  }
  getMigrationName(m: Migration): string {
    return m.name;
  }
  async getMigration(m: Migration): Promise<Knex.Migration & { config?: { transaction: boolean } }> {
    const transactional = m.transaction !== false;
    return {
      ...(transactional ? {} : { config: { transaction: false } }),
      up: async (knex) => {
        // A lock the migration cannot get at once is given up after LOCK_TIMEOUT (and the run
        // retried): queued behind a long read, it would make every query after it queue too.
        if (transactional && isServerPostgres(knex)) await knex.raw(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT_MS}ms'`);
        for (const statement of m.up) await knex.raw(statement);
      },
      down: async () => {
        throw new Error(`Migration ${m.name} is forward-only; restore from a backup to go back.`);
      },
    };
  }
}

const migratorConfig = (migrations: readonly Migration[]) => ({ migrationSource: new StaticMigrationSource(migrations), tableName: 'knex_migrations' });

/**
 * A server without pgvector fails the first migration deep in a stack trace; asked up front, the
 * service exits with one line naming the fix (runService prints a ConfigError's message alone).
 */
async function requireVectorExtension(knex: Knex): Promise<void> {
  const { rows } = await knex.raw(`SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available`);
  if (!rows[0]?.available) {
    throw new ConfigError(
      'PostgreSQL at DATABASE_URL has no pgvector extension ("vector"): install pgvector >= 0.7 on that server ' +
        '(Debian: bash infra/setup-services.sh; elsewhere: your distribution\'s postgresql-<major>-pgvector package), or unset DATABASE_URL for embedded mode.',
    );
  }
}

const isServerPostgres = (knex: Knex) => knex.client.config.client === 'pg';

/** How long a migration's statement waits for a table lock before the run gives up and retries. */
const LOCK_TIMEOUT_MS = 500;
/** Runs given up on a lock or a node out of reach before migrateLatest fails: about a minute of retrying. */
const RETRIES = 60;
const RETRY_DELAY_MS = 1_000;

/** Any 64-bit number no other advisory lock of ours uses. */
const MIGRATION_LOCK_KEY = 7_317_021_760_047_312;

/**
 * Processes starting together on one database (two APIs, an API and a dispatcher) migrate one
 * after the other: knex's own lock table is made by the first migration run, so two first runs
 * collide creating it (a unique violation in pg_type), and a run that finds the lock taken fails
 * instead of waiting. A session advisory lock on a connection held for the run queues them; the
 * second then finds nothing pending. PGlite has one connection and one process: no lock there; nor
 * with a pool of one connection (DB_POOL_MAX=1), which the held connection would leave the run without.
 */
async function withMigrationLock<T>(knex: Knex, run: () => Promise<T>): Promise<T> {
  if (!isServerPostgres(knex) || (knex.client.pool?.max ?? 2) < 2) return run();
  const connection = await knex.client.acquireConnection();
  try {
    // Asked again and again rather than waited for: a session waiting in pg_advisory_lock holds a
    // snapshot, and CREATE INDEX CONCURRENTLY in the run holding the lock waits for every snapshot
    // older than its own, so the two would wait on each other for ever.
    while (!(await connection.query('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK_KEY])).rows[0].locked) {
      await delay(200);
    }
    try {
      return await run();
    } finally {
      await connection.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await knex.client.releaseConnection(connection);
  }
}

const isLockTimeout = (err: unknown) => (err as { code?: unknown } | null)?.code === '55P03';

/**
 * Applies pending migrations (of `migrations`: the tests give a prefix of the list, or one of their
 * own after it); returns the names applied. A run given up on a lock (a long query on the table)
 * is rolled back and retried, so the services' queries never queue behind the migration for longer
 * than LOCK_TIMEOUT_MS while it waits; so is a run that found a node out of reach.
 */
export async function migrateLatest(knex: Knex, migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
  await requireVectorExtension(knex);
  return withMigrationLock(knex, async () => {
    const applied: string[] = [];
    for (let attempt = 1; ; attempt++) {
      const pendingBefore = await pendingMigrations(knex, migrations);
      try {
        await knex.migrate.latest(migratorConfig(migrations));
        return [...applied, ...pendingBefore];
      } catch (err) {
        // A Citus worker out of reach for a moment (a compose network still resolving its name
        // as the services start) fails the run like a lock not granted: it is tried again.
        if (!(isLockTimeout(err) || isDatabaseUnavailable(err)) || attempt >= RETRIES) throw err;
        // The migrations before the failing one that committed on their own stay applied.
        const pending = new Set(await pendingMigrations(knex, migrations));
        applied.push(...pendingBefore.filter((name) => !pending.has(name)));
        await delay(RETRY_DELAY_MS);
      }
    }
  });
}

export async function pendingMigrations(knex: Knex, migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
  const [, pending] = (await knex.migrate.list(migratorConfig(migrations))) as [unknown, Array<{ name: string } | string>];
  return pending.map((p) => (typeof p === 'string' ? p : p.name));
}
