/**
 * Whether a read's failure on a replica is the replica's (it stopped, restarted, is unreachable,
 * is full, cancelled the read to replay WAL, lacks the database, or refused a write): such a read is
 * run again on the primary. Anything else (a bad query, a cancelled request) is the read's own.
 */
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const SQLSTATES = new Set([
  '57P01', // admin_shutdown: the replica is stopping
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, or not yet consistent
  '57P04', // database_dropped: replay of a DROP DATABASE
  '53300', // too_many_connections
  '40001', // serialization_failure: on a standby, a read cancelled by a conflict with recovery
  '25006', // read_only_sql_transaction: a write that reached a replica
  '3D000', // invalid_catalog_name: a database the replica has yet to replay
]);

export function isReplicaFault(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (NETWORK.has(code) || SQLSTATES.has(code) || code.startsWith('08')) return true;
  if (e.name === 'KnexTimeoutError') return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|connection error and is not queryable|timeout expired|Client was closed/i.test(message);
}

/** Whether the fault says the replica itself is gone (not one read's conflict or a write sent to it): out of rotation until checked. */
export function replicaIsDown(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return isReplicaFault(err) && !(typeof code === 'string' && ['40001', '25006', '3D000'].includes(code));
}
