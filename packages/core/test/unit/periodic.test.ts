import { periodic, periodicStats } from '../../src/periodic';

describe('periodic work', () => {
  const logger = { warn: jest.fn() };
  beforeEach(() => {
    jest.useFakeTimers();
    logger.warn.mockClear();
  });
  afterEach(() => jest.useRealTimers());
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };

  it('runs at once, then one interval (± jitter) after each run ends, never two at a time', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const task = periodic({ name: 'test: single-flight', intervalMs: 1_000, logger, jitter: 0 }, () => {
      runs++;
      return new Promise<void>((r) => (release = r));
    });
    await settle();
    expect(runs).toBe(1);
    // A slow run: the interval passes several times, no second run starts.
    await jest.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(1);
    const asked = task.runNow();
    expect(runs).toBe(1);
    release();
    await asked;
    await jest.advanceTimersByTimeAsync(999);
    expect(runs).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(runs).toBe(2);
    release();
    await task.stop();
  });

  it('spreads its waits by the jitter', async () => {
    const starts: number[] = [];
    const task = periodic({ name: 'test: jitter', intervalMs: 1_000, logger, jitter: 0.5 }, async () => void starts.push(Date.now()));
    await jest.advanceTimersByTimeAsync(20_000);
    await task.stop();
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(500);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(1_500);
    expect(new Set(gaps).size).toBeGreaterThan(1);
  });

  it('logs each failure with its name, counts it, and goes on', async () => {
    let calls = 0;
    const task = periodic({ name: 'test: failing', intervalMs: 100, logger, jitter: 0 }, async () => {
      calls++;
      if (calls < 3) throw new Error(`boom ${calls}`);
    });
    await jest.advanceTimersByTimeAsync(250);
    await task.stop();
    expect(calls).toBe(3);
    expect(logger.warn).toHaveBeenCalledWith('test: failing failed; the next run tries again', { task: 'test: failing', error: 'boom 1' });
    expect(periodicStats.get('test: failing')).toEqual({ runs: 3, failures: 2 });
  });

  it('stop waits for the run under way and starts no other', async () => {
    let finished = false;
    let runs = 0;
    const task = periodic({ name: 'test: stop', intervalMs: 100, logger, runAtStart: false }, async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 500));
      finished = true;
    });
    await jest.advanceTimersByTimeAsync(120);
    expect(runs).toBe(1);
    const stopping = task.stop();
    await jest.advanceTimersByTimeAsync(500);
    await stopping;
    expect(finished).toBe(true);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(runs).toBe(1);
    await task.runNow();
    expect(runs).toBe(1);
  });
});
