import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { Knex } from 'knex';
import type { Config } from '@ams/core';
import { installDriverFeatures } from './driver-features';
import { HNSW_SESSION_SETTINGS } from './nearest';

export type Db = Knex;
export type DbDriver = 'postgres' | 'pglite';

export interface Database {
  knex: Knex;
  driver: DbDriver;
  close(): Promise<void>;
}

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
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'dbPoolMax'> & Partial<Pick<Config, 'dbPreparedStatements' | 'dbCancelAbandonedReads'>>,
): Promise<Database> {
  if (config.databaseUrl) {
    const knex = knexFactory({
      client: 'pg',
      connection: config.databaseUrl,
      pool: {
        min: 0,
        max: config.dbPoolMax,
        afterCreate: (conn: { query(sql: string, cb: (err?: Error) => void): void }, done: (err: Error | undefined, conn: unknown) => void) =>
          conn.query(HNSW_SESSION_SETTINGS, (err) => done(err, conn)),
      },
    });
    installDriverFeatures(knex, 'postgres', {
      preparedStatements: config.dbPreparedStatements ?? true,
      cancelAbandonedReads: config.dbCancelAbandonedReads ?? true,
    });
    return { knex, driver: 'postgres', close: () => knex.destroy() };
  }
  return createPgliteDatabase(config.dataDir, config.dbCancelAbandonedReads ?? true);
}

/** `dataDir` of `memory://` keeps everything in memory (used by the embedded-mode smoke test). */
export async function createPgliteDatabase(dataDir: string, cancelAbandonedReads = true): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const location = dataDir.startsWith('memory://') ? dataDir : path.resolve(dataDir);
  if (!location.startsWith('memory://')) fs.mkdirSync(location, { recursive: true });
  const pglite = await PGlite.create(location, { extensions: { vector } });
  await pglite.exec(HNSW_SESSION_SETTINGS);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ClientPgLite = require('knex-pglite');
  const knex = knexFactory({ client: ClientPgLite, connection: { pglite } as never });
  installDriverFeatures(knex, 'pglite', { preparedStatements: false, cancelAbandonedReads });
  return { knex, driver: 'pglite', close: () => knex.destroy() };
}
