/** A unique violation (SQLSTATE 23505) on the named index, told by code and constraint, never by message. */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string } | null;
  return e?.code === '23505' && e.constraint === constraint;
}
