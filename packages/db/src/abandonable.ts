import { AsyncLocalStorage } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';

// knex's own constructor of an instance over a client (what knex() and withUserParams use).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const makeKnex = require('knex/lib/knex-builder/make-knex') as (client: unknown) => Knex;
const FORWARDED = ['query', 'query-error', 'query-response', 'start'] as const;

/** Where a signal-bound knex keeps its signal: on its own copy of the client (see abandonable()). */
const SIGNAL = Symbol('abandon signal');
/** Whether a running statement can be cancelled (PostgreSQL) or not (PGlite), set by installAbandon. */
const CANCELS = Symbol('cancels on server');

interface RawClient {
  [SIGNAL]?: AbortSignal;
  [CANCELS]?: boolean;
  acquireConnection(): Promise<unknown>;
  query(connection: unknown, obj: { sql: string }): Promise<unknown>;
  acquireRawConnection(): Promise<unknown>;
  destroyRawConnection(connection: unknown): Promise<void>;
  _query(connection: unknown, obj: { sql: string; bindings: unknown[]; options: object }): Promise<unknown>;
}

/** The signal of the read request whose code is running (see whileReading). */
const readingFor = new AsyncLocalStorage<AbortSignal>();

/**
 * Runs `fn` so that every query it starts, on any knex of this package and through any service,
 * stops as through abandonable() when `signal` fires: what the API wraps each read request in, so
 * no route has to pass a bound db along. Only for work that is safe to drop (reads).
 */
export function whileReading<T>(signal: AbortSignal, fn: () => T): T {
  return readingFor.run(signal, fn);
}

/** Runs `fn` outside any read request: background work a request starts does not stop when the request is abandoned. */
export function detachedFromRequest<T>(fn: () => T): T {
  return readingFor.exit(fn);
}

/**
 * Cancels the statement running on `connection`, from a connection of its own (as knex's own
 * timeout cancel does). With `sql`, the backend must still be running that statement. The callers
 * keep `connection` out of the pool until this has finished: a search's statement is the same text
 * for every request, so a cancel landing after the connection had passed to another request would
 * stop that request's statement (a 500 for a client that did nothing wrong). A cancel that reaches
 * an idle backend is ignored by PostgreSQL.
 */
async function cancelOnServer(client: RawClient, connection: { processID?: number }, sql?: string): Promise<void> {
  if (!client[CANCELS] || connection.processID === undefined) return;
  const canceller = await client.acquireRawConnection();
  try {
    await client._query(canceller, {
      sql: `select pg_cancel_backend(pid) from pg_stat_activity where pid = $1 and state = 'active' and ($2::text is null or starts_with($2, query))`,
      bindings: [connection.processID, sql ?? null],
      options: {},
    });
  } finally {
    await client.destroyRawConnection(canceller).catch(() => undefined);
  }
}

/**
 * Teaches `knex` to stop for an abandoned request: a query made through abandonable(knex, signal)
 * is refused once the signal has fired (so the steps left are skipped), and one running when it
 * fires is cancelled on PostgreSQL. PGlite runs one statement at a time in this process and cannot
 * interrupt it: there only the queries not yet started are skipped.
 */
export function installAbandon(knex: Knex, driver: 'postgres' | 'pglite'): void {
  const client = knex.client as RawClient;
  client[CANCELS] = driver === 'postgres';
  const run = client.query;
  client.query = function (this: RawClient, connection, obj) {
    const signal = this[SIGNAL] ?? readingFor.getStore();
    if (!signal) return run.call(this, connection, obj);
    if (signal.aborted) return Promise.reject(signal.reason);
    let settled = false;
    let cancelling: Promise<void> | undefined;
    const cancel = () => {
      if (!settled) cancelling = cancelOnServer(this, connection as { processID?: number }, obj.sql).catch(() => undefined);
    };
    signal.addEventListener('abort', cancel, { once: true });
    return run.call(this, connection, obj).then(
      (result) => result,
      (err: unknown) => Promise.reject(signal.aborted ? signal.reason : err),
    ).finally(async () => {
      settled = true;
      signal.removeEventListener('abort', cancel);
      // The connection goes back to the pool only once a cancel sent for this statement has landed:
      // a late one would otherwise stop the next request's statement on it (see cancelOnServer).
      await cancelling;
    });
  };
}

/**
 * A transaction begun on a bound db (a read's: SET LOCAL before a vector scan) is abandoned as a
 * whole: the statement running is cancelled, PostgreSQL rolls the transaction back, nothing is left
 * half-done. Writes never get a bound db (services/api memory-deps.ts).
 */
function abandonableTransactions(bound: Knex, client: RawClient, signal: AbortSignal): void {
  const begin = bound.transaction.bind(bound) as (container: unknown, config?: unknown) => Promise<unknown>;
  const transaction = (container?: unknown, config?: unknown) => {
    if (typeof container !== 'function') return begin(container, config);
    return begin(async (trx: Knex.Transaction) => {
      if (signal.aborted) throw signal.reason;
      const connection = (await (trx.client as unknown as RawClient).acquireConnection()) as { processID?: number };
      let settled = false;
      let cancelling: Promise<void> | undefined;
      const cancel = () => {
        if (!settled) cancelling = cancelOnServer(client, connection).catch(() => undefined);
      };
      signal.addEventListener('abort', cancel, { once: true });
      try {
        return await (container as (trx: Knex.Transaction) => Promise<unknown>)(trx);
      } catch (err) {
        throw signal.aborted ? signal.reason : err;
      } finally {
        settled = true;
        signal.removeEventListener('abort', cancel);
        // Held until a cancel sent meanwhile has landed, so it cannot reach whoever gets the connection next.
        await cancelling;
      }
    }, config);
  };
  // knex defines its methods read-only.
  Object.defineProperty(bound, 'transaction', { value: transaction, configurable: true });
}

/** `db` whose queries stop when `signal` fires (see installAbandon); `db` itself without a signal. */
export function abandonable(db: Knex, signal: AbortSignal | undefined): Knex {
  if (!signal) return db;
  // A client of its own for this request, sharing everything (pool, config) with db's but its
  // events (knex hangs listeners on it) and the signal: a tenth of withUserParams' deep copy.
  const client = Object.create(db.client) as RawClient;
  EventEmitter.call(client as unknown as EventEmitter);
  client[SIGNAL] = signal;
  const bound = makeKnex(client);
  // Listeners of db's queries (bench/profile.ts) hear this request's too.
  for (const event of FORWARDED) for (const listener of db.listeners(event)) bound.on(event, listener as (...args: unknown[]) => void);
  abandonableTransactions(bound, client, signal);
  return bound;
}
