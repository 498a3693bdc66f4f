import { databaseUrlFor, jestWorkerId, workerDatabaseName } from './test-env';

// A setupFiles module: runs in every test file before the file's own modules load, so whatever reads
// DATABASE_URL or REDIS_KEY_PREFIX at import time already sees this worker's. The global setup left
// the run's names in the environment; each worker gets its clone of the template and a key prefix of
// its own, so files running at once in two workers never see each other's rows, jobs or counters.
const runName = process.env.TEST_DATABASE_NAME;
if (runName && !process.env.TEST_WORKER_DATABASE) {
  const id = jestWorkerId();
  const name = workerDatabaseName(runName, id);
  process.env.TEST_WORKER_DATABASE = name;
  process.env.DATABASE_URL = databaseUrlFor(process.env.DATABASE_URL!, name);
  process.env.REDIS_KEY_PREFIX = `${runName}_w${id}`;
}
