export interface PeriodicTask {
  /** Runs now unless a run is under way, whose end it then waits for (single-flight). Never rejects. */
  runNow(): Promise<void>;
  /** No more runs; waits for the one under way. */
  stop(): Promise<void>;
}

export interface PeriodicOptions {
  /** Names the task in logs and in the `ams_periodic_*` metrics. */
  name: string;
  intervalMs: number;
  logger: { warn(message: string, meta: Record<string, unknown>): unknown };
  /** Each wait is the interval ± this share of it, so processes started together drift apart. Default 0.1. */
  jitter?: number;
  /** Run once at start (default), or first after one interval. */
  runAtStart?: boolean;
}

/** Runs and failures of each periodic task of this process, by name: @ams/metrics reads them at scrape time. */
export const periodicStats = new Map<string, { runs: number; failures: number }>();

/**
 * Periodic work, the one way every process runs it: one run at a time, a jittered wait between the
 * end of a run and the start of the next (a slow run never piles up), each failure logged with the
 * task's name and counted, and a stop that waits for the run under way. The timer never keeps the
 * process alive.
 */
export function periodic(opts: PeriodicOptions, run: () => Promise<unknown>): PeriodicTask {
  const jitter = opts.jitter ?? 0.1;
  const stats = periodicStats.get(opts.name) ?? { runs: 0, failures: 0 };
  periodicStats.set(opts.name, stats);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const schedule = () => {
    if (stopped) return;
    const wait = opts.intervalMs * (1 - jitter + 2 * jitter * Math.random());
    timer = setTimeout(() => void runNow().finally(schedule), Math.max(0, wait));
    timer.unref();
  };
  const runNow = (): Promise<void> => {
    if (stopped) return running ?? Promise.resolve();
    running ??= (async () => {
      stats.runs++;
      try {
        await run();
      } catch (err) {
        stats.failures++;
        opts.logger.warn(`${opts.name} failed; the next run tries again`, { task: opts.name, error: (err as Error).message });
      }
    })().finally(() => (running = undefined));
    return running;
  };

  if (opts.runAtStart ?? true) void runNow().finally(schedule);
  else schedule();
  return {
    runNow,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
