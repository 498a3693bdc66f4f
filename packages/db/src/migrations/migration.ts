/**
 * A schema change, immutable once landed. By default its statements run in order inside one
 * transaction. `transaction: false` runs each statement on its own, for what PostgreSQL refuses
 * inside a transaction (`CREATE INDEX CONCURRENTLY`, `DROP INDEX CONCURRENTLY`): such a migration
 * is re-run from its first statement after a failure, so each statement must be safe to repeat (an
 * interrupted concurrent build leaves an invalid index: drop it `IF EXISTS` before building it).
 * docs/operations.md "Upgrades" says what a migration may do while the services run.
 */
export interface Migration {
  name: string;
  up: string[];
  transaction?: false;
}
