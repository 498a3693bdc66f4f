import { Gauge, type Registry } from 'prom-client';
import { webhookDeliveriesRepository, type Knex } from '@ams/db';

/** The webhook outbox as the database sees it, read at scrape time (every dispatcher reports the same figures). */
export function webhookOutboxGauges(registry: Registry, db: Knex): void {
  new Gauge({
    name: 'ams_webhook_outbox_depth',
    help: 'Webhook deliveries not finished, by status (pending, delivering); counted up to 100000.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const waiting = await webhookDeliveriesRepository.unfinished(db);
      this.set({ status: 'pending' }, waiting.pending);
      this.set({ status: 'delivering' }, waiting.delivering);
    },
  });
  new Gauge({
    name: 'ams_webhook_outbox_oldest_due_age_seconds',
    help: 'How long the most overdue unfinished delivery has been due (0: nothing overdue; retries wait for their time).',
    registers: [registry],
    async collect() {
      this.set(await webhookDeliveriesRepository.oldestDueAgeSeconds(db));
    },
  });
}
