import path from 'node:path';
import knexFactory, { Knex } from 'knex';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { Config, Logger } from '@ams/core';
import { nameStatementsOn } from './prepared-statements';
import { cacheAgentIdsOn } from './agent-id-cache';
import { followReads, readCancellation } from './read-cancellation';
import { HNSW_SESSION_SETTINGS } from './nearest';
import { makeDataDirPrivate, type DataDirPrivacy } from './private-data-dir';

export type Db = Knex;

/** The database features each behind a switch: DB_PREPARED_STATEMENTS (prepared-statements.ts), DB_CANCEL_ABANDONED_READS (read-cancellation.ts). */
export interface DriverFeatures {
  preparedStatements: boolean;
  cancelAbandonedReads: boolean;
}
type DbDriver = 'postgres' | 'pglite';

export interface Database {
  knex: Knex;
  driver: DbDriver;
  /** PGlite under a directory: what opening it did to make its files owner-only (the caller logs it). */
  dataDirPrivacy?: DataDirPrivacy;
  close(): Promise<void>;
}

/**
 * A PGlite session as knex-pglite uses it: a PGlite, or (the test harness) a stand-in for the jest
 * worker's one PGlite that every test file of the worker uses in turn.
 */
export type PgliteSession = Pick<PGlite, 'query' | 'exec' | 'close' | 'waitReady'>;

// pg returns bigint counts as strings; ours fit in a JS number.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pgTypes = require('pg').types;
pgTypes.setTypeParser(20, (v: string) => Number(v));

/** Resolves when the database answers a trivial query (health checks). */
export async function pingDatabase(db: Knex): Promise<void> {
  await db.raw('select 1');
}

/** PostgreSQL when DATABASE_URL is set, else PGlite (with pgvector) persisted under DATA_DIR. */
export async function createDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'dbPoolMax'> & Partial<Pick<Config, 'dbPreparedStatements' | 'dbCancelAbandonedReads' | 'agentCacheMs'>>,
  logger?: Logger,
): Promise<Database> {
  const db = await openDatabase(config, logger);
  if (config.agentCacheMs !== undefined) cacheAgentIdsOn(db.knex, config.agentCacheMs);
  return db;
}

async function openDatabase(config: Parameters<typeof createDatabase>[0], logger?: Logger): Promise<Database> {
  if (config.databaseUrl) {
    const features = { preparedStatements: config.dbPreparedStatements ?? true, cancelAbandonedReads: config.dbCancelAbandonedReads ?? true };
    const knex = createPostgresKnex(config.databaseUrl, config.dbPoolMax, features, { logger });
    return { knex, driver: 'postgres', close: () => knex.destroy() };
  }
  return createPgliteDatabase(config.dataDir, config.dbCancelAbandonedReads ?? true);
}

/** Where a pool's connections go when that changes over time (a read replica's pool: replicas/failover.ts). */
export interface PoolRoute {
  /** The URL a new connection goes to now. */
  to(): string;
  /** A connection made: the URL it is on (where its reads' cancels go). */
  opened(client: pg.Client): string;
  /** Whether a connection taken from the pool is still on the server in use: one that is not is dropped. */
  current(client: pg.Client): boolean;
}

/**
 * A pool on one PostgreSQL server (the primary, or a replica), with the search path's session
 * settings and the driver features. `timeoutMs` bounds connecting and waiting for a connection
 * (a replica's: one that stopped answering is given up on quickly, and its failures, which the
 * replica set handles and reports, are not logged by knex too); unset, knex's defaults. `logger`
 * takes knex's own messages otherwise (see driverLog). `route` moves the pool's new connections
 * between servers (knex's connection provider, asked again once `to()` answers another URL).
 */
export function createPostgresKnex(
  url: string,
  poolMax: number,
  features: DriverFeatures,
  { timeoutMs, logger, route }: { timeoutMs?: number; logger?: Logger; route?: PoolRoute } = {},
): Knex {
  const cancels = features.cancelAbandonedReads ? readCancellation(url) : undefined;
  const settings = (to: string) => (timeoutMs ? { connectionString: to, connectionTimeoutMillis: timeoutMs } : to);
  const knex = knexFactory({
    client: 'pg',
    ...(timeoutMs ? { log: { warn: () => undefined } } : logger ? { log: driverLog(logger) } : {}),
    connection: route
      ? () => {
          const to = route.to();
          return { connectionString: to, connectionTimeoutMillis: timeoutMs, expirationChecker: () => route.to() !== to };
        }
      : settings(url),
    ...(timeoutMs ? { acquireConnectionTimeout: timeoutMs } : {}),
    ...(cancels ? { postProcessResponse: cancels.postProcessResponse } : {}),
    pool: {
      min: 0,
      max: poolMax,
      afterCreate: (conn: pg.Client & { processID: number }, done: (err: Error | undefined, conn: unknown) => void) => {
        const server = route ? route.opened(conn) : url;
        conn.query(HNSW_SESSION_SETTINGS, (err) => {
          if (err || !cancels?.afterCreate) return done(err ?? undefined, conn);
          cancels.afterCreate(conn, () => done(undefined, conn), server);
        });
      },
      ...(route ? { validate: (conn: pg.Client) => route.current(conn) } : {}),
    },
  });
  if (cancels) followReads(knex);
  if (features.preparedStatements) nameStatementsOn(knex);
  return knex;
}

/**
 * knex's own messages (a failed acquire with its stack, a deprecation) as the service's log lines:
 * knex prints them with console.log, coloured and over several lines, in the middle of JSON logs.
 */
function driverLog(logger: Logger) {
  const to = (level: 'warn' | 'error' | 'debug') => (message: unknown) => logger[level]('database driver', { detail: String(message) });
  return { warn: to('warn'), error: to('error'), deprecate: to('warn'), debug: to('debug') };
}

/** `dataDir` of `memory://` keeps everything in memory (used by the embedded-mode smoke test). */
export async function createPgliteDatabase(dataDir: string, cancelAbandonedReads = true): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const location = dataDir.startsWith('memory://') ? dataDir : path.resolve(dataDir);
  const onDisk = !location.startsWith('memory://');
  // Owner-only before PGlite writes a byte, and again once it has unpacked a new cluster.
  const before = onDisk ? makeDataDirPrivate(location) : undefined;
  const pglite = await PGlite.create(location, { extensions: { vector } });
  const after = onDisk ? makeDataDirPrivate(location) : undefined;
  const db = await pgliteDatabase(pglite, cancelAbandonedReads);
  if (!onDisk) return db;
  return {
    ...db,
    dataDirPrivacy: before && after && { exposed: before.exposed, unfixable: [...before.unfixable, ...after.unfixable] },
    // Files made while running are owner-only (umask) but 0700: a clean stop leaves them 0600.
    close: async () => {
      await db.close();
      makeDataDirPrivate(location);
    },
  };
}

/** knex on a PGlite session, with the search path's session settings and the driver features. */
export async function pgliteDatabase(pglite: PgliteSession, cancelAbandonedReads: boolean): Promise<Database> {
  await pglite.exec(HNSW_SESSION_SETTINGS);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ClientPgLite = require('knex-pglite');
  const cancels = cancelAbandonedReads ? readCancellation(undefined) : undefined;
  const knex = knexFactory({ client: ClientPgLite, connection: { pglite } as never, ...(cancels ? { postProcessResponse: cancels.postProcessResponse } : {}) });
  if (cancels) followReads(knex);
  return { knex, driver: 'pglite', close: () => knex.destroy() };
}
