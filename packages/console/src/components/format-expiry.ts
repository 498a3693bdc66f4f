/** "in 3 h", "in 2 d", or "expired" for a memory's expires_at (Unix seconds). */
export function expiresIn(expiresAt: number | null | undefined, now = Date.now()): string {
  if (expiresAt === null || expiresAt === undefined) return 'never';
  const s = Math.round(expiresAt - now / 1000);
  if (s <= 0) return 'expired';
  if (s < 60) return 'in under a minute';
  if (s < 3600) return `in ${Math.floor(s / 60)} min`;
  if (s < 86_400) return `in ${Math.floor(s / 3600)} h`;
  return `in ${Math.floor(s / 86_400)} d`;
}
