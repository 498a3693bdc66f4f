import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { createPostgresKnex } from '@ams/db';
import { waitFor } from './wait';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * The test cluster's streaming replica (scripts/test-replica.sh, made by npm test's pre-step):
 * TEST_DATABASE_REPLICA_URL, or the one on 127.0.0.1:5433. A physical replica holds every database
 * of the cluster, so the jest worker's clone is there under the same name.
 */
const REPLICA_ADMIN_URL = process.env.TEST_DATABASE_REPLICA_URL ?? 'postgres://postgres@127.0.0.1:5433/postgres';

/** The replica's copy of `databaseUrl`'s database (the worker's clone by default). */
export function replicaUrlOf(databaseUrl = process.env.DATABASE_URL!): string {
  const u = new URL(REPLICA_ADMIN_URL);
  u.pathname = new URL(databaseUrl).pathname;
  return u.toString();
}

async function onReplica<T>(sql: string): Promise<T[]> {
  const replica = createPostgresKnex(REPLICA_ADMIN_URL, 1, { preparedStatements: false, cancelAbandonedReads: false }, { timeoutMs: 2_000 });
  try {
    return ((await replica.raw(sql)) as { rows: T[] }).rows;
  } finally {
    await replica.destroy();
  }
}

/** Whether the replica answers as a standby. */
export const replicaAnswers = () => onReplica<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby').then((r) => r[0]!.standby, () => false);

/**
 * Holds back the replica's replay by `ms` (recovery_min_apply_delay: each commit is applied that
 * long after it happened on the primary); 0 lets it catch up. It is the whole replica's: only
 * suites of the `processes` project (one at a time) change it, and each sets it back to 0.
 */
export async function setReplicaApplyDelay(ms: number): Promise<void> {
  await onReplica(ms ? `ALTER SYSTEM SET recovery_min_apply_delay = '${Math.floor(ms)}ms'` : 'ALTER SYSTEM RESET recovery_min_apply_delay');
  await onReplica('SELECT pg_reload_conf()');
  await waitFor(async () => (await onReplica<{ d: string }>('SHOW recovery_min_apply_delay AS d'))[0]?.d === (ms ? `${Math.floor(ms)}ms` : '0'), 5_000, 'the replica to take the apply delay', 50).catch(async () => {
    // SHOW prints units its own way (1s, not 1000ms): the setting in milliseconds settles it.
    await waitFor(async () => Number((await onReplica<{ v: string }>("SELECT setting AS v FROM pg_settings WHERE name = 'recovery_min_apply_delay'"))[0]?.v) === Math.floor(ms), 5_000, 'the replica to take the apply delay', 50);
  });
}

/**
 * Stops (fast: its sessions are cut), starts, pauses (SIGSTOP: it hangs with its sessions open) or
 * resumes the local test replica; waits until it answers after a start. Asynchronous: the test's
 * own requests go on meanwhile.
 */
export async function replicaServer(action: 'stop' | 'start' | 'pause' | 'resume'): Promise<void> {
  await promisify(execFile)('bash', [path.join(ROOT, 'scripts/test-replica.sh'), action]);
  if (action === 'start') await waitFor(replicaAnswers, 60_000, 'the test replica to answer', 200);
}
