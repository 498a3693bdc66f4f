import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { EventType, webhookDeliveriesRepository } from '@ams/db';

/**
 * Records a webhook event in the caller's transaction and returns the delivery ids to hand to the
 * dispatcher once that transaction has committed (ctx.webhookDispatch). Losing the hand-off loses
 * nothing: the dispatcher's reconciler finds due rows in the database.
 */
export async function recordEvent(
  trx: Knex,
  accountId: string,
  type: EventType,
  data: Record<string, unknown>,
): Promise<string[]> {
  const { deliveryIds } = await webhookDeliveriesRepository.recordEvent(trx, {
    accountId,
    type,
    data,
    eventId: crypto.randomUUID(),
    createdAt: new Date(),
  });
  return deliveryIds;
}
