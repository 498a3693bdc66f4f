import crypto from 'node:crypto';
import type { Knex } from 'knex';

/**
 * The search path's statements run as named prepared statements on PostgreSQL: each connection
 * parses a statement's text once, and once PostgreSQL's generic plan is no dearer than its custom
 * ones (after five runs) plans it once too, where every search otherwise parsed and planned its
 * statements afresh (planning alone 0.2–0.55 ms a statement at 100k rows; npm run bench).
 *
 * Opt-in per statement (`prepared(q)`), for statements whose best plan does not hang on the
 * values bound (not a nearest-neighbour scan under filters: see hydrateAndRecord). A connection
 * keeps every statement it prepared, so only the first MAX_NAMED_TEXTS distinct texts run on a
 * database (one per process) get a name, and later ones run unnamed.
 * Off with DB_PREPARED_STATEMENTS=false, for a pooler that moves a session's statements between
 * server connections (PgBouncer in transaction mode before 1.21). PGlite runs them unnamed.
 */
const MAX_NAMED_TEXTS = 64;

/** The options key `prepared` sets; installPreparedStatements turns it into a name or drops it. */
const PREPARE = 'amsPrepare';

export function prepared<T extends Knex.QueryBuilder | Knex.Raw>(q: T): T {
  return (q as Knex.Raw).options({ [PREPARE]: true }) as T;
}

interface QueryObject {
  sql: string;
  options?: Record<string, unknown>;
}

interface Client {
  config: object;
  _query(connection: unknown, obj: QueryObject): Promise<unknown>;
}

/** Per database (its knex config, which its transactions' clients share): whether to name, and the names given. */
const settings = new WeakMap<object, { named: boolean; names: Map<string, string> }>();
const PATCHED = Symbol('prepared statements');

/**
 * Makes `prepared(q)` take effect on `knex`: the client class's query method is wrapped once (a
 * transaction's client is a fresh object of that class, so an instance's method would not reach it).
 */
export function installPreparedStatements(knex: Knex, named: boolean): void {
  const client = knex.client as Client;
  settings.set(client.config, { named, names: new Map() });
  const proto = Object.getPrototypeOf(client) as Client & { [PATCHED]?: true };
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  const run = proto._query;
  proto._query = function (this: Client, connection, obj) {
    if (obj.options?.[PREPARE]) {
      // Mutated in place: knex reads the response back off this object.
      delete obj.options[PREPARE];
      const name = nameOf(this.config, obj.sql);
      if (name) obj.options.name = name;
    }
    return run.call(this, connection, obj);
  };
}

function nameOf(config: object, sql: string): string | undefined {
  const s = settings.get(config);
  if (!s?.named) return undefined;
  let name = s.names.get(sql);
  if (!name && s.names.size < MAX_NAMED_TEXTS) {
    name = `ams_${crypto.createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    s.names.set(sql, name);
  }
  return name;
}
