/**
 * A unique violation (SQLSTATE 23505) on the named index, told by code and constraint. Citus (13.2)
 * re-raises a worker's error without its constraint field, naming the shard's copy of the index
 * (`<name>_<shard id>`) only in its message: that message is read then, and only then.
 */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string } | null;
  if (e?.code !== '23505') return false;
  if (e.constraint !== undefined) return e.constraint === constraint;
  return new RegExp(`unique constraint "${constraint}_\\d+"`).test(e.message ?? '');
}

/**
 * The database (or, on Citus, the worker holding the account's shard) cannot be reached: a
 * connection exception (SQLSTATE class 08, what Citus raises for a worker that is down), a server
 * shutting down or starting (57P01-57P03), a refused, reset or timed-out socket, or a host name
 * that does not resolve (yet: a compose network adds names as containers join). Worth a retry:
 * the API answers 503.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown } | null;
  if (typeof e?.code !== 'string') return false;
  return e.code.startsWith('08') || UNREACHABLE.has(e.code);
}

const UNREACHABLE = new Set(['57P01', '57P02', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * A create's INSERT refused its row: an agent named through live_agent() was no longer live
 * (memories.agent_id is NOT NULL). The create looks its agent up afresh (agent-ref.ts).
 */
export function isAgentGone(err: unknown): boolean {
  const e = err as { code?: string; column?: string; message?: string } | null;
  return e?.code === '23502' && (e.column === 'agent_id' || (e.column === undefined && /"agent_id"/.test(e.message ?? '')));
}
