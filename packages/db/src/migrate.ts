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

/** Applies pending migrations; returns the names applied. */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  await requireVectorExtension(knex);
  const [, applied] = (await knex.migrate.latest(migratorConfig)) as [number, string[]];
  return applied;
}

export async function pendingMigrations(knex: Knex): Promise<string[]> {
  const [, pending] = (await knex.migrate.list(migratorConfig)) as [unknown, Array<{ name: string } | string>];
  return pending.map((p) => (typeof p === 'string' ? p : p.name));
}
