import type { Metric, Registry } from 'prom-client';

/**
 * The metric `name` already in `registry`, or the one `make` registers: two workers or dispatchers
 * of one process (a test app made twice over one context) count into the same series.
 */
export function registered<M extends Metric>(registry: Registry, name: string, make: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? make();
}
