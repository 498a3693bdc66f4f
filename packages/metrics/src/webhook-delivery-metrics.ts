import { Counter, Histogram, type Registry } from 'prom-client';
import { registered } from './registered';
import type { AttemptObservation } from '@ams/webhooks';

/**
 * Counts a dispatcher's attempts by outcome and times the receivers, in `registry`; returns the
 * dispatcher's onAttempt. The dispatcher process and the API's in-process dispatcher both use it.
 */
export function webhookDeliveryMetrics(registry: Registry): (o: AttemptObservation) => void {
  const deliveries = registered(registry, 'ams_webhook_deliveries_total', () =>
    new Counter({
      name: 'ams_webhook_deliveries_total',
      help: 'Delivery attempts this process made, by outcome (delivered, retry, dead, failed, skipped, discarded).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
  );
  const seconds = registered(registry, 'ams_webhook_delivery_duration_seconds', () =>
    new Histogram({
      name: 'ams_webhook_delivery_duration_seconds',
      help: 'Time from sending an attempt to the receiver’s answer (or the timeout), by outcome.',
      labelNames: ['outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  );
  return ({ outcome, durationMs }) => {
    deliveries.inc({ outcome });
    if (durationMs !== undefined) seconds.observe({ outcome }, durationMs / 1000);
  };
}
