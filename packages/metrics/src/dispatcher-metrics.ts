import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Knex } from '@ams/db';
import { webhookDeliveryMetrics } from './webhook-delivery-metrics';
import { webhookOutboxGauges } from './webhook-outbox-gauges';
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
  webhookOutboxGauges(registry, db);
  return { registry, observeAttempt: webhookDeliveryMetrics(registry) };
}
