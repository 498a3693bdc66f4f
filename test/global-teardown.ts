import { createClient } from 'redis';
import { createDatabase, dropPostgresDatabase } from '@ams/db';
import { removeRunTmpDir } from './run-tmpdir';
import { ADMIN_DATABASE_URL, TEST_REDIS_URL } from './test-env';

/**
 * Drops every database of the run (the template, each worker's clone, scratch databases a failed
 * test left behind: all named after TEST_DATABASE_NAME) and the run's Redis keys (every worker's
 * prefix starts with it), then deletes the run's temporary directory, failing the run if a test
 * left anything in it.
 */
export default async function globalTeardown(): Promise<void> {
  // The files' PGlite, when they ran in this process (one file, --runInBand): see test/environment.js.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  await (require('./environment') as { closeWorkerPglite(): Promise<void> }).closeWorkerPglite();
  const runName = process.env.TEST_DATABASE_NAME;
  if (!runName) return;
  const admin = await createDatabase({ databaseUrl: ADMIN_DATABASE_URL, dataDir: '', dbPoolMax: 1 });
  let names: string[];
  try {
    const rows = (await admin.knex.raw(`select datname from pg_database where starts_with(datname, ?)`, [runName])).rows as Array<{ datname: string }>;
    names = rows.map((r) => r.datname);
  } finally {
    await admin.close();
  }
  for (const name of names) await dropPostgresDatabase(ADMIN_DATABASE_URL, name);
  const redis = createClient({ url: TEST_REDIS_URL });
  await redis.connect();
  try {
    for await (const key of redis.scanIterator({ MATCH: `${runName}*`, COUNT: 500 })) await redis.del(key);
  } finally {
    await redis.quit();
  }
  // Last: a run that left files fails after everything else is cleaned up.
  removeRunTmpDir();
}
