import type { Config } from '@ams/core';
import { createPgliteDatabase, migrateLatest, pgliteStartFiles, type Database, type PgliteStart } from '@ams/db';

/** The jest worker's store (test/environment.js): what one file keeps there, the worker's later files find. */
interface WorkerStore {
  wasmModule(file: string): Promise<NonNullable<PgliteStart['pgliteWasmModule']>>;
  fileBlob(file: string): Blob;
  blob(key: string): Blob | undefined;
  keep(key: string, bytes: ArrayBuffer): void;
}

const workerStore = (): WorkerStore | undefined => (globalThis as { __AMS_WORKER_STORE__?: WorkerStore }).__AMS_WORKER_STORE__;

/** The migrated data directory's key in the worker store: the same migrations for every file of a run. */
const MIGRATED = 'pglite-migrated-data-dir';

/**
 * A fresh in-memory PGlite, migrated: the pglite backend's database for one test file. A PGlite's
 * start is seconds of WebAssembly compilation, initdb and migrations, so under jest the worker's
 * first file does it and keeps the compiled modules and the migrated data directory (a tarball
 * taken before any test touches it) in the worker store; every later file compiles nothing and
 * loads that tarball instead of running initdb. Each file still gets a database of its own.
 */
export async function createTestPglite(config: Pick<Config, 'dataDir' | 'dbCancelAbandonedReads'>): Promise<Database> {
  const store = workerStore();
  if (!store || !config.dataDir.startsWith('memory://')) {
    const db = await createPgliteDatabase(config.dataDir, config.dbCancelAbandonedReads ?? true);
    await migrateLatest(db.knex);
    return db;
  }
  const files = pgliteStartFiles();
  const migrated = store.blob(MIGRATED);
  const start: PgliteStart = {
    pgliteWasmModule: await store.wasmModule(files.pgliteWasm),
    initdbWasmModule: await store.wasmModule(files.initdbWasm),
    fsBundle: store.fileBlob(files.fsBundle),
    loadDataDir: migrated,
  };
  const db = await createPgliteDatabase(config.dataDir, config.dbCancelAbandonedReads ?? true, start);
  // On the tarball this only confirms it is at the latest migration.
  await migrateLatest(db.knex);
  if (!migrated) {
    // Written out, so a later file's WAL replay has nothing to do.
    await db.knex.raw('checkpoint');
    store.keep(MIGRATED, await (await db.dumpDataDir!()).arrayBuffer());
  }
  return db;
}
