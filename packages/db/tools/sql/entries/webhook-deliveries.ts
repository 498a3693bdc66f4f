import { webhookDeliveriesRepository } from '../../../src/repositories/webhook-deliveries.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AT, DELIVERY, EVENT, MEMORY, WEBHOOK, deliveryRow } from '../fixtures';

const EVENT_OF = { accountId: ACCOUNT, type: 'memory.updated' as const, data: { memory_id: MEMORY }, eventId: EVENT, createdAt: AT };

export const webhookDeliveries = entriesOf('webhookDeliveriesRepository', webhookDeliveriesRepository, {
  recordEvent: [{ args: [EVENT_OF] }],
  recordEvents: [{ args: [[EVENT_OF]] }],
  recordOneShots: [{ args: [[{ ...EVENT_OF, url: 'https://hooks.example.com/once' }]] }],
  claimDue: [
    { name: 'a dispatcher: the accounts with deliveries due, then each one\'s claim', args: [30_000, 10] },
    { name: 'one delivery', args: [30_000, 1, { accountId: ACCOUNT, id: DELIVERY }] },
  ],
  recordAttempt: [
    { name: 'failed, tried again later', args: [deliveryRow(), { status: 'pending', statusCode: 503, error: 'Service Unavailable', responseExcerpt: 'busy', nextAttemptAt: AT }] },
    { name: 'delivered', args: [deliveryRow(), { status: 'succeeded', statusCode: 200, error: null, responseExcerpt: 'ok' }] },
  ],
  skip: [{ args: [deliveryRow(), 'the webhook was deleted'] }],
  releaseClaims: [{ args: [[deliveryRow()]] }],
  unfinished: [{ args: [100_000] }],
  oldestDueAgeSeconds: [{ args: [] }],
  listForWebhook: [{ args: [ACCOUNT, WEBHOOK, { limit: 20, offset: 0 }] }],
  find: [{ args: [ACCOUNT, DELIVERY] }],
  replay: [{ args: [ACCOUNT, DELIVERY] }],
});
