/** Where the test run finds its services; override with TEST_DATABASE_ADMIN_URL / TEST_REDIS_URL. */
/**
 * TEST_BACKEND=citus runs the suites on the Citus coordinator of infra/citus-cluster.sh (port 9700)
 * instead of plain PostgreSQL (docs/scaling.md).
 */
export const TEST_ON_CITUS = process.env.TEST_BACKEND === 'citus';
export const ADMIN_DATABASE_URL =
  process.env.TEST_DATABASE_ADMIN_URL ?? `postgres://postgres@127.0.0.1:${TEST_ON_CITUS ? 9700 : 5432}/postgres`;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The jest worker running this file: 1..maxWorkers (1 in band). */
export const jestWorkerId = (): string => process.env.JEST_WORKER_ID ?? '1';

/** The database of jest worker `id`: a clone of the run's migrated template (see global-setup). */
export const workerDatabaseName = (runDatabase: string, id: string): string => `${runDatabase}_w${id}`;

/** A URL on the same server as `url`, for database `name`. */
export function databaseUrlFor(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
