import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import pg from 'pg';

/**
 * Reads nobody waits for any more (their client left, their deadline passed) stop: the statement
 * running is cancelled on PostgreSQL, and the statements not yet started are refused, so the steps
 * left are skipped. PGlite runs one statement at a time in this process and cannot interrupt it:
 * there only the statements not yet started are refused. Off with DB_CANCEL_ABANDONED_READS=false.
 *
 * Built on knex's public surface only: its `query` / `query-response` / `query-error` events (each
 * statement's text, its id and its connection's `__knexUid`), the pool's `afterCreate` (each
 * connection, a pg.Client with its `processID`) and `postProcessResponse` (where a statement's
 * result passes before its connection goes back to the pool). A statement is cancelled with
 * pg_cancel_backend from a pg.Client of its own on the connection's server.
 */

/** What a read request has running: see whileReading. */
interface Reading {
  signal: AbortSignal;
  /** Its statements running now, by knex's query id. */
  running: Map<string, Statement>;
  /** The cancels sent for it, still on their way. */
  cancels: Set<Promise<void>>;
}

interface Statement {
  queryUid: string;
  connection: string;
  sql: string;
}

/** Fields of knex's query events this module reads. */
interface QueryEvent {
  __knexUid?: string;
  __knexQueryUid?: string;
  sql: string;
}

/** A pool's connection as afterCreate gets it: a pg.Client (its backend's processID is pg's), with knex's id. */
type PoolConnection = pg.Client & { processID: number; __knexUid?: string };

/** A connection of a pool that cancels: its backend and the server it is on. */
interface Backend {
  processID: number;
  server: string;
}

const readingNow = new AsyncLocalStorage<Reading>();
/** Every open connection of a cancelling pool, by its knex id. */
const backends = new Map<string, Backend>();
/** The statement each connection is running (the last one it started), by its knex id. */
const onConnection = new Map<string, string>();

/**
 * Runs `fn` so that every query it starts, on any knex of this package and through any service,
 * stops when `signal` fires: what the API wraps each read request in. Only for work that is safe
 * to drop (reads). What `fn` returns, if a promise or a query, rejects with the signal's reason once
 * it has fired.
 */
export function whileReading<T>(signal: AbortSignal, fn: () => T): T {
  const reading: Reading = { signal, running: new Map(), cancels: new Set() };
  signal.addEventListener('abort', () => cancelRunning(reading), { once: true });
  return readingNow.run(reading, () => {
    const result = fn();
    if (typeof (result as PromiseLike<unknown> | undefined)?.then !== 'function') return result;
    // Resolved in here, so a query builder returned unrun runs as part of the read.
    return Promise.resolve(result).catch((err: unknown) => {
      throw signal.aborted ? signal.reason : err;
    }) as T;
  });
}

/** Runs `fn` outside any read request: background work a request starts does not stop when the request is abandoned. */
export function detachedFromRequest<T>(fn: () => T): T {
  return readingNow.exit(fn);
}

function cancelRunning(reading: Reading): void {
  for (const s of reading.running.values()) {
    const backend = backends.get(s.connection);
    // Only while its connection still runs it: once it has moved on, the cancel would stop another statement.
    if (!backend || onConnection.get(s.connection) !== s.queryUid) continue;
    const sent = cancelling.send(backend.server, backend.processID, s.sql).catch(() => undefined);
    reading.cancels.add(sent);
    void sent.then(() => reading.cancels.delete(sent));
  }
}

/**
 * How a cancel is sent (replaceable by a test, to hold one on its way): pg_cancel_backend from a
 * connection of its own, and only while the backend is still running that statement
 * (pg_stat_activity shows the first track_activity_query_size bytes of it). A cancel that reaches
 * an idle backend is ignored by PostgreSQL.
 */
export const cancelling = {
  async send(server: string, processID: number, sql: string): Promise<void> {
    const client = new pg.Client({ connectionString: server });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query(`select pg_cancel_backend(pid) from pg_stat_activity where pid = $1 and state = 'active' and starts_with($2, query)`, [processID, sql]);
    } finally {
      await client.end().catch(() => undefined);
    }
  },
};

/** The knex settings that make a pool's reads stop (createPostgresKnex and pgliteDatabase spread them into knex's config). */
export function readCancellation(
  server: string | undefined,
): Pick<Knex.Config, 'postProcessResponse'> & { afterCreate?: (connection: PoolConnection, done: (err?: Error) => void, on?: string) => void } {
  return {
    // A statement of an abandoned read that ended anyway: its result is refused, and its connection
    // goes back to the pool only once the cancels sent for the read have landed, so a late one
    // cannot stop the statement of whoever gets the connection next.
    postProcessResponse: (result: unknown) => {
      const reading = readingNow.getStore();
      if (!reading?.signal.aborted) return result;
      return Promise.all(reading.cancels).then(() => {
        throw reading.signal.reason;
      });
    },
    ...(server
      ? {
          // `on`: the server this connection is on, when its pool moves between servers (a replica's).
          afterCreate: (connection, done, on = server) => {
            const id = connection.__knexUid;
            if (id) {
              backends.set(id, { processID: connection.processID, server: on });
              connection.once('end', () => {
                backends.delete(id);
                onConnection.delete(id);
              });
            }
            done();
          },
        }
      : {}),
  };
}

/** Follows `knex`'s statements: refuses one a read starts once abandoned, tracks the running ones for cancelRunning. */
export function followReads(knex: Knex): void {
  knex.on('query', (q: QueryEvent) => {
    if (q.__knexUid) onConnection.set(q.__knexUid, q.__knexQueryUid ?? '');
    const reading = readingNow.getStore();
    // Transaction control (no query id) always runs: a transaction refused its ROLLBACK would go back to the pool open.
    if (!reading || !q.__knexQueryUid) return;
    // Thrown here, before knex sends it: the statement is refused, its promise rejects with the reason.
    if (reading.signal.aborted) throw reading.signal.reason;
    if (q.__knexUid) reading.running.set(q.__knexQueryUid, { queryUid: q.__knexQueryUid, connection: q.__knexUid, sql: q.sql });
  });
  const ended = (q: QueryEvent) => {
    if (!q.__knexQueryUid) return;
    readingNow.getStore()?.running.delete(q.__knexQueryUid);
    if (q.__knexUid && onConnection.get(q.__knexUid) === q.__knexQueryUid) onConnection.delete(q.__knexUid);
  };
  knex.on('query-response', (_response: unknown, q: QueryEvent) => ended(q));
  knex.on('query-error', (_err: unknown, q: QueryEvent) => ended(q));
}
