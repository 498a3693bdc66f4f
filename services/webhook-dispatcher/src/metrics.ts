import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Knex } from '@ams/db';
import { webhookOutboxGauges } from '@ams/metrics';
import type { AttemptObservation } from '@ams/webhooks';

export interface DispatcherMetrics {
  registry: Registry;
  /** Pass as the dispatcher's onAttempt. */
  observeAttempt(o: AttemptObservation): void;
}

/**
 * Prometheus metrics of one dispatcher process: what became of its attempts and how long the
 * receivers took, plus the outbox as the database sees it (read at scrape time).
 */
export function dispatcherMetrics(db: Knex): DispatcherMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'ams_webhook_dispatcher_' });
  const deliveries = new Counter({
    name: 'ams_webhook_deliveries_total',
    help: 'Delivery attempts this process made, by outcome (delivered, retry, dead, failed, skipped, discarded).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'ams_webhook_delivery_duration_seconds',
    help: 'Time from sending an attempt to the receiver’s answer (or the timeout), by outcome.',
    labelNames: ['outcome'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  webhookOutboxGauges(registry, db);
  return {
    registry,
    observeAttempt({ outcome, durationMs }) {
      deliveries.inc({ outcome });
      if (durationMs !== undefined) seconds.observe({ outcome }, durationMs / 1000);
    },
  };
}
