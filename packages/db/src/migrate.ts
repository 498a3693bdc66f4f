import type { Knex } from 'knex';
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

/** Applies pending migrations; returns the names applied. */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest(migratorConfig)) as [number, string[]];
  return applied;
}

export async function pendingMigrations(knex: Knex): Promise<string[]> {
  const [, pending] = (await knex.migrate.list(migratorConfig)) as [unknown, Array<{ name: string } | string>];
  return pending.map((p) => (typeof p === 'string' ? p : p.name));
}
