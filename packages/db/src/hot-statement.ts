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
  const client = db.client as Knex.Client & { config: Knex.Config; emit(event: string, ...args: unknown[]): boolean };
  if (client.config.client !== 'pg' || (db as { isTransaction?: boolean }).isTransaction) {
    const raw = db.raw(sql, bindings as Knex.RawBinding[]);
    const name = opts.prepare ? statementName(db, numberBindings(sql)) : undefined;
    const { rows } = (await (name ? raw.options({ name }) : raw)) as { rows: R[] };
    return rows;
  }
  const text = numberBindings(sql);
  const name = opts.prepare ? statementName(db, text) : undefined;
  const connection = (await client.acquireConnection()) as PoolConnection;
  const event = { __knexUid: connection.__knexUid, __knexQueryUid: `hot-${++statements}`, sql: text, bindings, method: 'raw' };
  try {
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
  } finally {
    await client.releaseConnection(connection);
  }
}
