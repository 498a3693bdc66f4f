/**
 * The spec: "A failed delivery is retried up to 3 times with exponential backoff of 5, 25 and 125
 * seconds." So one delivery is at most 1 + 3 attempts. Bee-Queue's own exponential backoff doubles
 * (5/10/20 s), hence this explicit schedule.
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5_000, 25_000, 125_000];

/**
 * Delay before the next attempt once `attemptsMade` attempts have failed: 1 → delays[0],
 * 2 → delays[1], ...; null when the retries are used up (give up, mark the delivery failed).
 * 0 attempts made → 0 (the first attempt goes out at once).
 */
export function nextAttemptDelayMs(attemptsMade: number, delaysMs: readonly number[] = DEFAULT_RETRY_DELAYS_MS): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 0) {
    throw new RangeError(`attemptsMade must be a non-negative integer, got ${attemptsMade}`);
  }
  if (attemptsMade === 0) return 0;
  return delaysMs[attemptsMade - 1] ?? null;
}

/** Total attempts a delivery may get with this schedule (first attempt + one per delay). */
export function maxAttempts(delaysMs: readonly number[] = DEFAULT_RETRY_DELAYS_MS): number {
  return delaysMs.length + 1;
}
