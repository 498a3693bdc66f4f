import type { Knex } from 'knex';
import type pg from 'pg';
import { statementName } from './prepared-statements';

/** A pool connection as knex hands it out: a pg.Client with knex's id for it. */
type PoolConnection = pg.Client & { __knexUid?: string };

/** Texts with `?` bindings as pg numbers them (`$1`, `$2`, …), by text: a hot path has few. */
const numbered = new Map<string, string>();
const MAX_NUMBERED = 256;

function numberBindings(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    if (numbered.size >= MAX_NUMBERED) numbered.clear();
    numbered.set(sql, text);
  }
  return text;
}

let statements = 0;

/** Runs one statement (`?` bindings) on the connection it was given; see runStatement. */
export type RunStatement = <R = Record<string, unknown>>(sql: string, bindings: unknown[], opts?: { prepare?: boolean }) => Promise<R[]>;

type PgClient = Knex.Client & { config: Knex.Config; emit(event: string, ...args: unknown[]): boolean };

/**
 * A hot path's statement, its text assembled by the caller (no query builder; `?` bindings, none
 * inside the text otherwise), run on a connection knex's pool hands out through pg's own query
 * config (`{ name, text, values }`): no builder, compiler or runner of knex's per request, which
 * cost a search more main-thread time than any other library (npm run bench:load, a CPU profile).
 * `prepare`: as a named prepared statement where the database names them (prepared-statements.ts).
 *
 * It announces itself as knex's own statements do (the client's `query`, `query-response` and
 * `query-error` events, the pool's postProcessResponse), so whatever follows knex's statements
 * follows it too: an abandoned read's refusal and cancellation (read-cancellation.ts), the benches'
 * statement timings, the SQL reference's capture. In a transaction, and on PGlite (whose driver
 * is not pg), it runs through knex.raw.
 */
export async function runStatement<R = Record<string, unknown>>(db: Knex, sql: string, bindings: unknown[], opts: { prepare?: boolean } = {}): Promise<R[]> {
  return onOneConnection(db, (run) => run<R>(sql, bindings, opts));
}

/**
 * Statements that follow one another (each as runStatement runs it) on one connection of the pool,
 * taken once: the second of two costs its round trip, not another pass through the pool.
 */
export async function onOneConnection<T>(db: Knex, statements: (run: RunStatement) => Promise<T>): Promise<T> {
  const client = db.client as PgClient;
  if (client.config.client !== 'pg' || (db as { isTransaction?: boolean }).isTransaction) return statements((sql, bindings, opts) => viaKnex(db, sql, bindings, opts));
  const connection = (await client.acquireConnection()) as PoolConnection;
  try {
    return await statements((sql, bindings, opts) => onConnection(db, connection, sql, bindings, opts));
  } finally {
    await client.releaseConnection(connection);
  }
}

async function viaKnex<R>(db: Knex, sql: string, bindings: unknown[], opts: { prepare?: boolean } = {}): Promise<R[]> {
  const raw = db.raw(sql, bindings as Knex.RawBinding[]);
  const name = opts.prepare ? statementName(db, numberBindings(sql)) : undefined;
  const { rows } = (await (name ? raw.options({ name }) : raw)) as { rows: R[] };
  return rows;
}

async function onConnection<R>(db: Knex, connection: PoolConnection, sql: string, bindings: unknown[], opts: { prepare?: boolean } = {}): Promise<R[]> {
  const client = db.client as PgClient;
  const text = numberBindings(sql);
  const name = opts.prepare ? statementName(db, text) : undefined;
  const event = { __knexUid: connection.__knexUid, __knexQueryUid: `hot-${++statements}`, sql: text, bindings, method: 'raw' };
  // A listener may refuse it here (an abandoned read), before it is sent.
  client.emit('query', event);
  let result: unknown;
  try {
    result = await connection.query<R & pg.QueryResultRow>(name ? { name, text, values: bindings } : { text, values: bindings });
  } catch (err) {
    client.emit('query-error', err, event);
    throw err;
  }
  client.emit('query-response', result, event);
  const post = client.config.postProcessResponse;
  return ((post ? await post(result, undefined) : result) as pg.QueryResult<R & pg.QueryResultRow>).rows;
}
