import { periodicStats } from '@ams/core';
import { Counter, type Registry } from 'prom-client';

/** Runs and failures of the process's periodic tasks (sweeps, checks, heartbeats), by task, read at scrape time. */
export function periodicMetrics(registry: Registry): void {
  for (const [name, help, field] of [
    ['ams_periodic_runs_total', 'Runs of each periodic task of this process.', 'runs'],
    ['ams_periodic_failures_total', 'Runs of each periodic task that failed (each is logged with the task name).', 'failures'],
  ] as const) {
    new Counter({
      name,
      help,
      labelNames: ['task'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [task, stats] of periodicStats) this.inc({ task }, stats[field]);
      },
    });
  }
}
