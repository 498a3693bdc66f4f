import type { Registry } from 'prom-client';
import { webhookDeliveriesRepository, type Knex } from '@ams/db';
import { backlogGauges } from './backlog-gauges';

/** The webhook outbox as the database sees it, read at scrape time (every dispatcher reports the same figures). */
export function webhookOutboxGauges(registry: Registry, db: Knex): void {
  backlogGauges(registry, {
    depth: {
      name: 'ams_webhook_outbox_depth',
      help: 'Webhook deliveries not finished, by status (pending, delivering); counted up to 100000.',
      read: () => webhookDeliveriesRepository.unfinished(db),
    },
    oldest: {
      name: 'ams_webhook_outbox_oldest_due_age_seconds',
      help: 'How long the most overdue unfinished delivery has been due (0: nothing overdue; retries wait for their time).',
      read: () => webhookDeliveriesRepository.oldestDueAgeSeconds(db),
    },
  });
}
