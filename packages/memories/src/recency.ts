/**
 * Opt-in recency weighting of a search (docs/api.md, "Time-aware recall"): a memory's score is
 * multiplied by 2^(−age / half-life), its age counted from its valid_from (else created_at) to the
 * search's as_of (else now). A memory recorded now keeps its score; one half-life old keeps half.
 */
export function recencyFactor(ageSeconds: number, halfLifeSeconds: number): number {
  return Math.pow(2, -Math.max(0, ageSeconds) / halfLifeSeconds);
}

/** When a memory started counting as recent: when it became true, else when it was recorded. */
export const recencyOrigin = (row: { valid_from: Date | null; created_at: Date }): Date => new Date(row.valid_from ?? row.created_at);
