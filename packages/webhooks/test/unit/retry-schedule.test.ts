import { DEFAULT_RETRY_DELAYS_MS, maxAttempts, nextAttemptDelayMs } from '../../src/retry-schedule';

describe('nextAttemptDelayMs', () => {
  it('follows the spec: retries after 5 s, 25 s and 125 s, then gives up', () => {
    expect(DEFAULT_RETRY_DELAYS_MS).toEqual([5_000, 25_000, 125_000]);
    expect(nextAttemptDelayMs(1, DEFAULT_RETRY_DELAYS_MS)).toBe(5_000);
    expect(nextAttemptDelayMs(2, DEFAULT_RETRY_DELAYS_MS)).toBe(25_000);
    expect(nextAttemptDelayMs(3, DEFAULT_RETRY_DELAYS_MS)).toBe(125_000);
    expect(nextAttemptDelayMs(4, DEFAULT_RETRY_DELAYS_MS)).toBeNull();
    expect(nextAttemptDelayMs(10)).toBeNull();
    expect(maxAttempts()).toBe(4);
  });

  it('sends the first attempt at once and takes custom schedules (e.g. fast ones in tests)', () => {
    expect(nextAttemptDelayMs(0)).toBe(0);
    expect(nextAttemptDelayMs(1, [10, 20])).toBe(10);
    expect(nextAttemptDelayMs(3, [10, 20])).toBeNull();
    expect(nextAttemptDelayMs(1, [])).toBeNull();
  });

  it('rejects nonsense counts', () => {
    expect(() => nextAttemptDelayMs(-1)).toThrow(RangeError);
    expect(() => nextAttemptDelayMs(1.5)).toThrow(RangeError);
  });
});
