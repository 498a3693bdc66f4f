import type { Tier } from '@ams/vocabulary';

/** docs/api.md, "Memories": ≥ 0.8 hot (the spec's promotion rule), ≥ 0.3 warm, else cold. */
export function tierForImportance(importance: number): Tier {
  if (importance >= 0.8) return 'hot';
  if (importance >= 0.3) return 'warm';
  return 'cold';
}
