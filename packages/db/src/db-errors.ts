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
