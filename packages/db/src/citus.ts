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
const ON_CITUS = `EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`;

/** The co-location anchor: every distributed tenant table shares its shards' placement. */
export const COLOCATION_ANCHOR = 'agents';

/** `plpgsql`, run on Citus only. `statements` may use the variable `t regclass`-free plain SQL. */
export function onCitus(plpgsql: string): string {
  return `DO $citus$
BEGIN
  IF ${ON_CITUS} THEN
    ${plpgsql}
  END IF;
END $citus$`;
}

/** Whether `knex` is connected to a Citus coordinator. */
async function isCitus(knex: Knex): Promise<boolean> {
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
