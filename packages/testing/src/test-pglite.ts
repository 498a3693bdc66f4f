import type { Config } from '@ams/core';
import { createPgliteDatabase, migrateLatest, pgliteDatabase, type Database, type PgliteSession } from '@ams/db';
import { leasedSession } from './pglite-lease';

/** The jest worker's store (test/environment.js). */
interface WorkerStore {
  leasePglite(): Promise<{ session: PgliteSession; lease: number }>;
  holdsPglite(lease: number): boolean;
}

const workerStore = (): WorkerStore | undefined => (globalThis as { __AMS_WORKER_STORE__?: WorkerStore }).__AMS_WORKER_STORE__;

/** A migrated PGlite of the caller's own (in memory unless `dataDir` names a directory). */
export async function createOwnPglite(dataDir = 'memory://', cancelAbandonedReads = true): Promise<Database> {
  const db = await createPgliteDatabase(dataDir, cancelAbandonedReads);
  await migrateLatest(db.knex);
  return db;
}

/**
 * An in-memory PGlite, migrated: the pglite backend's database for one test file. Under jest it is
 * the worker's one PGlite, which its files use in turn, as the PostgreSQL projects' files share their
 * worker's database: a start costs seconds of WebAssembly set-up and initdb, once per worker instead
 * of once per file. The file gets the session as a fresh connection would find it (no transaction,
 * no session state) and loses it when the worker's next file takes it. Elsewhere, a PGlite of its own.
 */
export async function createTestPglite(config: Pick<Config, 'dataDir' | 'dbCancelAbandonedReads'>): Promise<Database> {
  const store = workerStore();
  if (!store || !config.dataDir.startsWith('memory://')) return createOwnPglite(config.dataDir, config.dbCancelAbandonedReads ?? true);
  const { session, lease } = await store.leasePglite();
  const leased = leasedSession(session, () => store.holdsPglite(lease));
  // What the worker's previous file may have left: a transaction it never ended, session settings, locks.
  await leased.exec('ROLLBACK');
  await leased.exec('DISCARD ALL');
  const db = await pgliteDatabase(leased, config.dbCancelAbandonedReads ?? true);
  // After the worker's first file, this only confirms the schema is at the latest migration.
  await migrateLatest(db.knex);
  return db;
}
