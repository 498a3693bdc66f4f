import { busyRate, retryDelayMs } from '../../src';

const span = (worker: string, startedMs: number, finishedMs: number, memories = 10) => ({ worker, startedMs, finishedMs, memories });

describe('busyRate', () => {
  it('is null without batches', () => {
    expect(busyRate([])).toBeNull();
  });

  it('counts busy time only: idle gaps between batches do not slow a worker down', () => {
    // 20 memories in 2 s of work spread over a minute: 10 a second.
    expect(busyRate([span('w1', 0, 1_000), span('w1', 59_000, 60_000)])).toBeCloseTo(10);
  });

  it('does not count batches running side by side twice', () => {
    // Two batches of 10 over the same second: 20 a second, not 10.
    expect(busyRate([span('w1', 0, 1_000), span('w1', 0, 1_000)])).toBeCloseTo(20);
    // Overlapping spans merge: 0–1.5 s busy for 20 memories.
    expect(busyRate([span('w1', 0, 1_000), span('w1', 500, 1_500)])).toBeCloseTo(20 / 1.5);
  });

  it('adds workers up', () => {
    expect(busyRate([span('w1', 0, 1_000), span('w2', 0, 2_000)])).toBeCloseTo(10 + 5);
  });
});

describe('retryDelayMs', () => {
  it('doubles from the base and caps at five minutes', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1_000))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(retryDelayMs(40, 1_000)).toBe(300_000);
  });
});
