import crypto from 'node:crypto';
import type { Knex } from 'knex';

/**
 * The search path's statements and a single memory's create run as named prepared statements on
 * PostgreSQL: each connection parses a statement's text once, and once PostgreSQL's generic plan is
 * no dearer than its custom ones (after five runs) plans it once too, where every request otherwise
 * parsed and planned its statements afresh (planning alone 0.2–0.55 ms a statement at 100k rows, npm
 * run bench; parsing a search's rows with their entities, or a create's CTEs, ~0.5 ms at 10k).
 *
 * Opt-in per statement (`prepared(db, q)`, runStatement's `prepare`), for statements whose best plan does not hang on the
 * values bound (not a nearest-neighbour scan under filters, whose best plan hangs on their
 * selectivity). The name reaches pg as a query option (knex's `options()`: pg's `{ name, text,
 * values }`). A connection keeps every statement it prepared, so only the first MAX_NAMED_TEXTS
 * distinct texts run on a database (one per process) get a name, and later ones run unnamed.
 * Off with DB_PREPARED_STATEMENTS=false, for a pooler that moves a session's statements between
 * server connections (PgBouncer in transaction mode before 1.21). PGlite runs them unnamed.
 */
const MAX_NAMED_TEXTS = 64;

/**
 * The names given on each database that names its statements, by its knex config: the one object
 * its transactions' clients share with it.
 */
const namesOn = new WeakMap<object, Map<string, string>>();

/** Makes `prepared()` name the statements run on `knex` (a PostgreSQL pool with DB_PREPARED_STATEMENTS on). */
export function nameStatementsOn(knex: Knex): void {
  namesOn.set(configOf(knex), new Map());
}

const configOf = (db: Knex): object => (db.client as Knex.Client).config;

/** Whether `db` (or a transaction of it) runs the statements marked for preparing as named ones. */
export const namesStatements = (db: Knex): boolean => namesOn.has(configOf(db));

/** `q` (built on `db`, or a transaction of it) as a named prepared statement where `db` names them; `q` as it is elsewhere. */
export function prepared<T extends Knex.QueryBuilder | Knex.Raw>(db: Knex, q: T): T {
  if (!namesStatements(db)) return q;
  const name = statementName(db, (q.toSQL() as Knex.Sql).sql);
  return name ? ((q as Knex.Raw).options({ name }) as T) : q;
}

/** The name of the statement `sql` where `db` names its statements (and the cap is not reached); else undefined. */
export function statementName(db: Knex, sql: string): string | undefined {
  const names = namesOn.get(configOf(db));
  if (!names) return undefined;
  let name = names.get(sql);
  if (!name && names.size < MAX_NAMED_TEXTS) {
    name = `ams_${crypto.createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
  }
  return name;
}
