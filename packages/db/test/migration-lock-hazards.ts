import type { Migration } from '../src/migrations';

/**
 * Migrations after this one are checked: those before it have run on every store already (one of
 * them, 025, rebuilds the HNSW indexes with writes waiting, as docs/operations.md "Upgrades" says).
 */
const CHECKED_AFTER = '20261128_071_oauth';

/** The hazards of the checked migrations in `migrations`: none, or the reason the upgrade would stall. */
export function checkedMigrationHazards(migrations: readonly Migration[]): string[] {
  return migrations.filter((m) => m.name > CHECKED_AFTER).flatMap(lockHazards);
}

/**
 * The statements of a migration that would hold a lock the services' queries queue behind for as
 * long as a large table takes to scan or rewrite (docs/operations.md "Upgrades"): read from the
 * SQL, so they are found whatever the size of the test's tables. A table the migration creates
 * itself is empty and in no one's use: anything goes on it.
 */
export function lockHazards(migration: Migration): string[] {
  const statements = migration.up.map((sql) => sql.replace(/--[^\n]*/g, '').replace(/\s+/g, ' ').trim());
  const created = new Set(statements.flatMap((sql) => [...sql.matchAll(/\bCREATE TABLE (?:IF NOT EXISTS )?([\w."]+)/gi)].map((m) => bare(m[1]!))));
  const existing = (table: string | undefined) => table === undefined || !created.has(bare(table));
  const hazards = new Set<string>();
  const flag = (sql: string, why: string) => hazards.add(`${migration.name}: ${why}: ${sql.slice(0, 120)}`);
  for (const sql of statements) {
    for (const m of sql.matchAll(/\bCREATE (?:UNIQUE )?INDEX (?!CONCURRENTLY)(?:IF NOT EXISTS )?[^;]*?\bON\b ?(?:ONLY )?([\w."]+)?/gi)) {
      if (existing(m[1])) flag(sql, 'CREATE INDEX without CONCURRENTLY on a table that has rows (writes wait for the build)');
    }
    if (/\bREINDEX\b(?![^;]*\bCONCURRENTLY\b)/i.test(sql)) flag(sql, 'REINDEX without CONCURRENTLY');
    if (/\b(VACUUM FULL|CLUSTER|LOCK TABLE)\b/i.test(sql)) flag(sql, 'VACUUM FULL, CLUSTER or LOCK TABLE');
    if (/\bREFRESH MATERIALIZED VIEW (?!CONCURRENTLY)/i.test(sql)) flag(sql, 'REFRESH MATERIALIZED VIEW without CONCURRENTLY');
    for (const m of sql.matchAll(/\bALTER TABLE (?:IF EXISTS )?(?:ONLY )?([\w."]+)(.*)/gi)) {
      if (!existing(m[1])) continue;
      const actions = m[2]!;
      if (/\bALTER (?:COLUMN )?[\w"]+ (?:SET DATA )?TYPE\b/i.test(actions)) flag(sql, 'a column type change (rewrites the table)');
      if (/\bSET NOT NULL\b/i.test(actions)) flag(sql, 'SET NOT NULL (scans the table; add a CHECK … NOT VALID, validate it, then set it)');
      if (/\bADD (?:CONSTRAINT [\w"]+ )?(?:CHECK|FOREIGN KEY)\b/i.test(actions) && !/\bNOT VALID\b/i.test(actions)) {
        flag(sql, 'a CHECK or FOREIGN KEY constraint without NOT VALID (validated under the lock)');
      }
      if (/\bADD (?:CONSTRAINT [\w"]+ )?(?:PRIMARY KEY|UNIQUE)\b(?! USING INDEX)/i.test(actions)) flag(sql, 'PRIMARY KEY or UNIQUE without USING INDEX (builds its index under the lock)');
      if (/\bGENERATED ALWAYS AS\b[^,]*\bSTORED\b/i.test(actions)) flag(sql, 'a stored generated column (rewrites the table)');
    }
    if (migration.transaction !== false) {
      for (const m of sql.matchAll(/(?<!\bON )\b(?:UPDATE|DELETE FROM) (?:ONLY )?([\w."]+)/gi)) {
        // A function's or a trigger's body runs later, on the services' own rows.
        if (existing(m[1]) && !/^CREATE\b/i.test(sql)) flag(sql, 'rows changed in the migration\'s transaction (locked until it commits; batch them outside)');
      }
    }
  }
  return [...hazards];
}

const bare = (name: string) => name.replace(/"/g, '').replace(/^.*\./, '').toLowerCase();
