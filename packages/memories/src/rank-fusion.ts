import type { Candidate } from '@ams/db';

export const RRF_K = 60;

export interface FusedCandidate {
  id: string;
  score: number;
  /** 1-based rank in each list the memory appeared in. */
  ranks: Record<string, number>;
  scores: Record<string, number>;
}

/**
 * Reciprocal rank fusion: Σ 1 / (k + rank) over the lists, rescaled to 0..1 by the best score
 * possible from the lists that returned anything (first in all of them scores 1).
 */
export function reciprocalRankFusion(lists: Record<string, Candidate[]>, k = RRF_K): FusedCandidate[] {
  const fused = new Map<string, FusedCandidate>();
  const nonEmpty = Object.values(lists).filter((l) => l.length > 0).length;
  if (nonEmpty === 0) return [];
  const best = nonEmpty / (k + 1);
  for (const [name, list] of Object.entries(lists)) {
    list.forEach((c, i) => {
      const entry = fused.get(c.id) ?? { id: c.id, score: 0, ranks: {}, scores: {} };
      entry.score += 1 / (k + i + 1) / best;
      entry.ranks[name] = i + 1;
      entry.scores[name] = c.score;
      fused.set(c.id, entry);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}
