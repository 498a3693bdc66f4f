import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';

/**
 * The one module that reaches into knex below its public API, for two driver-level features:
 *   - named prepared statements (`prepared(q)`): knex's client method `_query` passes a name to pg;
 *   - abandonable reads (`abandonable`, `whileReading`): knex's client method `query` refuses or
 *     cancels a statement for a request nobody waits for, and `knex/lib/knex-builder/make-knex`
 *     builds a knex over a per-request copy of the client.
 * Each is behind a switch (DB_PREPARED_STATEMENTS, DB_CANCEL_ABANDONED_READS); with both off, knex
 * runs untouched. installDriverFeatures checks the internals it uses exist with the shape it expects
 * and throws naming the one missing, so a knex upgrade that moves them fails at start (and in
 * driver-features.test.ts), not silently.
 */

export interface DriverFeatures {
  preparedStatements: boolean;
  cancelAbandonedReads: boolean;
}

// knex's own constructor of an instance over a client (what knex() and withUserParams use).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const makeKnex = require('knex/lib/knex-builder/make-knex') as (client: unknown) => Knex;

/** The knex internals this module uses, missing or of another shape: what installDriverFeatures refuses to start with. */
export function missingKnexInternals(knex: Knex): string[] {
  const client = knex.client as Record<string, unknown>;
  const proto = Object.getPrototypeOf(client) as Record<string, unknown>;
  const takesTwo = (f: unknown) => typeof f === 'function' && f.length === 2;
  const missing: string[] = [];
  if (typeof makeKnex !== 'function') missing.push('knex/lib/knex-builder/make-knex');
  if (!takesTwo(proto._query)) missing.push('Client.prototype._query(connection, obj)');
  if (!takesTwo(client.query)) missing.push('Client.prototype.query(connection, obj)');
  for (const m of ['acquireConnection', 'acquireRawConnection', 'destroyRawConnection'] as const) {
    if (typeof client[m] !== 'function') missing.push(`Client.prototype.${m}`);
  }
  return missing;
}

/** Turns on the features `on` asks for on `knex`; throws when knex lacks an internal they need. */
export function installDriverFeatures(knex: Knex, driver: 'postgres' | 'pglite', on: DriverFeatures): void {
  if (!on.preparedStatements && !on.cancelAbandonedReads) return;
  const missing = missingKnexInternals(knex);
  if (missing.length) throw new Error(`this knex version lacks what the database driver features use (${missing.join(', ')}): set DB_PREPARED_STATEMENTS=false and DB_CANCEL_ABANDONED_READS=false, or update packages/db/src/driver-features.ts`);
  if (on.cancelAbandonedReads) installAbandon(knex, driver);
  installPreparedStatements(knex, on.preparedStatements && driver === 'postgres');
}

// ---- Named prepared statements -------------------------------------------------------------

/**
 * The search path's statements run as named prepared statements on PostgreSQL: each connection
 * parses a statement's text once, and once PostgreSQL's generic plan is no dearer than its custom
 * ones (after five runs) plans it once too, where every search otherwise parsed and planned its
 * statements afresh (planning alone 0.2–0.55 ms a statement at 100k rows; npm run bench).
 *
 * Opt-in per statement (`prepared(q)`), for statements whose best plan does not hang on the
 * values bound (not a nearest-neighbour scan under filters, whose best plan hangs on their selectivity). A connection
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
function installPreparedStatements(knex: Knex, named: boolean): void {
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

// ---- Abandonable reads ---------------------------------------------------------------------

const FORWARDED = ['query', 'query-error', 'query-response', 'start'] as const;

/** Where a signal-bound knex keeps its signal: on its own copy of the client (see abandonable()). */
const SIGNAL = Symbol('abandon signal');
/** Whether a running statement can be cancelled (PostgreSQL) or not (PGlite), set by installAbandon; unset when the feature is off. */
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
async function cancelOnServer(of: RawClient, connection: { processID?: number }, sql?: string): Promise<void> {
  if (!of[CANCELS] || connection.processID === undefined) return;
  const client = serverOf.get(connection) ?? of;
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
 * The client that opened each connection: a statement is cancelled on its connection's own server,
 * whichever client ran it (a replica's read that fell back to a primary connection, failover.ts).
 */
const serverOf = new WeakMap<object, RawClient>();

/**
 * Teaches `knex` to stop for an abandoned request: a query made through abandonable(knex, signal)
 * is refused once the signal has fired (so the steps left are skipped), and one running when it
 * fires is cancelled on PostgreSQL. PGlite runs one statement at a time in this process and cannot
 * interrupt it: there only the queries not yet started are skipped.
 */
function installAbandon(knex: Knex, driver: 'postgres' | 'pglite'): void {
  const client = knex.client as RawClient;
  client[CANCELS] = driver === 'postgres';
  const open = client.acquireRawConnection;
  client.acquireRawConnection = async function (this: RawClient) {
    const connection = (await open.call(this)) as object;
    serverOf.set(connection, this);
    return connection;
  };
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
  // Without DB_CANCEL_ABANDONED_READS the db is left as it is: the read runs to its end.
  if (!signal || (db.client as RawClient)[CANCELS] === undefined) return db;
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
