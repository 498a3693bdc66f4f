import { createDatabase, createPostgresDatabase, dropPostgresDatabase, migrateLatest, type Database } from '@ams/db';
import { testBackend } from './test-app';
import { createOwnPglite } from './test-pglite';

/**
 * A PostgreSQL database of a test's own, beside its jest worker's (DATABASE_URL), for tests that
 * change what is service-wide (the active embedding model, a re-embed): dropped by `drop`. Migrated
 * by the app. Named after the worker's database (`<run>_w<worker>_<label>`), so two workers running
 * the same label never collide and the run's teardown drops what a failed test left.
 */
export async function createScratchDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const workerUrl = new URL(process.env.DATABASE_URL!);
  const admin = new URL(workerUrl);
  admin.pathname = '/postgres';
  const name = `${workerUrl.pathname.slice(1)}_${label}`;
  const url = await createPostgresDatabase(admin.toString(), name);
  return { url, drop: () => dropPostgresDatabase(admin.toString(), name) };
}

/**
 * createScratchDatabase, migrated, with a pool of `poolMax` connections open on it: for a file whose
 * app and child processes need a database of their own. `drop` closes the pool, then drops it.
 */
export async function createMigratedScratchDatabase(label: string, poolMax: number): Promise<{ url: string; db: Database; drop(): Promise<void> }> {
  const scratch = await createScratchDatabase(label);
  const db = await createDatabase({ databaseUrl: scratch.url, dataDir: '', dbPoolMax: poolMax });
  const drop = async () => {
    await db.close();
    await scratch.drop();
  };
  try {
    await migrateLatest(db.knex);
  } catch (err) {
    await drop();
    throw err;
  }
  return { url: scratch.url, db, drop };
}

/**
 * A migrated database of a test file's own on the run's backend: createMigratedScratchDatabase on
 * PostgreSQL; on PGlite, an in-memory PGlite of its own instead of the one the worker's files share.
 * For a file that changes what is service-wide (the active embedding model, a re-embed).
 */
export async function createPrivateTestDatabase(label: string, poolMax: number): Promise<{ db: Database; drop(): Promise<void> }> {
  if (testBackend() === 'postgres') return createMigratedScratchDatabase(label, poolMax);
  const db = await createOwnPglite();
  return { db, drop: () => db.close() };
}
