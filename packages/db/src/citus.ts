import type { Knex } from 'knex';

/**
 * Citus (a coordinator with workers, docs/scaling.md): tenant tables are distributed by `account_id`
 * and co-located, so every statement filtered by one account runs on one shard of one worker; the
 * small tables looked up across accounts (accounts, api_keys) are reference tables, a copy on every
 * node; the operational singletons (embedding_state, reembed_runs, embedding_batches) stay plain
 * tables on the coordinator, never joined with tenant tables.
 *
 * The migrations are the same on PostgreSQL, PGlite and Citus: the Citus-only steps are SQL guarded
 * by ON_CITUS, which is false wherever the citus extension is absent. A guarded step is a DO block
 * whose Citus calls sit in a branch PostgreSQL only plans once reached, so they need not exist elsewhere.
 */

/** True on a database with the citus extension (a coordinator). */
export const ON_CITUS = `EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`;

/** The co-location anchor: every distributed tenant table shares its shards' placement. */
export const COLOCATION_ANCHOR = 'agents';

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain identifier: ${name}`);
  return name;
}

/** `plpgsql`, run on Citus only. `statements` may use the variable `t regclass`-free plain SQL. */
export function onCitus(plpgsql: string): string {
  return `DO $citus$
BEGIN
  IF ${ON_CITUS} THEN
    ${plpgsql}
  END IF;
END $citus$`;
}

/**
 * A migration step for a new tenant table (it must have `account_id uuid NOT NULL REFERENCES accounts`
 * and `account_id` first in its primary key, unique indexes and foreign keys to other tenant tables):
 * distributes it by account_id, co-located with the others. Call right after its CREATE TABLE,
 * before any table references it. A no-op off Citus, or when already distributed.
 */
export function distributeTable(table: string): string {
  const t = identifier(table);
  return onCitus(`IF NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = '${t}'::regclass) THEN
      PERFORM create_distributed_table('${t}', 'account_id', colocate_with => '${COLOCATION_ANCHOR}');
    END IF;`);
}

/**
 * A migration step for a small table read across accounts (by a key, not by account): a copy on
 * every node. It may reference other reference tables only, never a tenant table.
 */
export function referenceTable(table: string): string {
  const t = identifier(table);
  return onCitus(`IF NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = '${t}'::regclass) THEN
      PERFORM create_reference_table('${t}');
    END IF;`);
}

/** Whether `knex` is connected to a Citus coordinator. */
export async function isCitus(knex: Knex): Promise<boolean> {
  const { rows } = await knex.raw(`SELECT ${ON_CITUS} AS citus`);
  return Boolean(rows[0]?.citus);
}

/** Whether `db` is connected to a Citus coordinator, asked once per database client (PGlite never is). */
const citusByClient = new WeakMap<object, Promise<boolean>>();
export function onCitusCoordinator(db: Knex): Promise<boolean> {
  const config = db.client.config as { client?: unknown };
  if (config.client !== 'pg') return Promise.resolve(false);
  let known = citusByClient.get(config);
  if (!known) {
    known = isCitus(db);
    citusByClient.set(config, known);
    // A failed look-up (a connection lost) is asked again next time.
    known.catch(() => citusByClient.delete(config));
  }
  return known;
}
