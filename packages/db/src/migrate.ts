import type { Knex } from 'knex';
import { ConfigError } from '@ams/core';
import { MIGRATIONS, Migration } from './migrations';

/** Knex's migrator, fed from the static list instead of the file system. */
class StaticMigrationSource implements Knex.MigrationSource<Migration> {
  async getMigrations(): Promise<Migration[]> {
    return [...MIGRATIONS];
  }
  getMigrationName(m: Migration): string {
    return m.name;
  }
  async getMigration(m: Migration): Promise<Knex.Migration> {
    return {
      up: async (knex) => {
        for (const statement of m.up) await knex.raw(statement);
      },
      down: async () => {
        throw new Error(`Migration ${m.name} is forward-only; restore from a backup to go back.`);
      },
    };
  }
}

const migratorConfig = { migrationSource: new StaticMigrationSource(), tableName: 'knex_migrations' };

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
  if (knex.client.config.client !== 'pg' || (knex.client.pool?.max ?? 2) < 2) return run();
  const connection = await knex.client.acquireConnection();
  try {
    await connection.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await run();
    } finally {
      await connection.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await knex.client.releaseConnection(connection);
  }
}

/** Applies pending migrations; returns the names applied. */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  await requireVectorExtension(knex);
  return withMigrationLock(knex, async () => {
    const [, applied] = (await knex.migrate.latest(migratorConfig)) as [number, string[]];
    return applied;
  });
}

export async function pendingMigrations(knex: Knex): Promise<string[]> {
  const [, pending] = (await knex.migrate.list(migratorConfig)) as [unknown, Array<{ name: string } | string>];
  return pending.map((p) => (typeof p === 'string' ? p : p.name));
}
