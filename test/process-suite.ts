import { createDatabase, type Database, type Knex } from '@ams/db';
import { ADMIN_DATABASE_URL } from './test-env';

// setupFilesAfterEnv of the `processes` projects: suites that start, SIGKILL or SIGTERM API,
// worker, dispatcher, redis-server or browser processes. Their data is already their own (the
// worker's database clone, a redis-server on a free port or a key prefix of the worker's), but a
// pair of them at once would load both cores with child processes, and their timings (a kill
// mid-batch, a restart within a deadline) are the ones that suffer. So they run one at a time:
// each file holds a PostgreSQL advisory lock for its whole run (a transaction-scoped one, so a
// crashed worker's dropped connection releases it), and the other jest worker meanwhile runs
// ordinary files. test/sequencer.js spaces them out so a worker rarely waits on this lock.
const PROCESS_SUITE_LOCK = 29_000_001;

let admin: Database | undefined;
let held: Knex.Transaction | undefined;

beforeAll(async () => {
  admin = await createDatabase({ databaseUrl: ADMIN_DATABASE_URL, dataDir: '', dbPoolMax: 1 });
  held = await admin.knex.transaction();
  await held.raw('select pg_advisory_xact_lock(?)', [PROCESS_SUITE_LOCK]);
}, 30 * 60_000);

afterAll(async () => {
  await held?.commit();
  await admin?.close();
});
