/**
 * Cosine similarity as a response score: clamped to 0..1 (opposite vectors would give down to -1,
 * float error slightly above 1) and rounded to 6 decimals.
 */
export function similarityScore(cosine: number): number {
  return Math.round(Math.min(1, Math.max(0, cosine)) * 1e6) / 1e6;
}
