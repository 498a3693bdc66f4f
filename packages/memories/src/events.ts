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
  return recordEvents(trx, accountId, type, [data]);
}

/** recordEvent for many events of one type (a batch), in one statement. */
export async function recordEvents(trx: Knex, accountId: string, type: EventType, data: Array<Record<string, unknown>>): Promise<string[]> {
  const createdAt = new Date();
  const recorded = await webhookDeliveriesRepository.recordEvents(
    trx,
    data.map((d) => ({ accountId, type, data: d, eventId: crypto.randomUUID(), createdAt })),
  );
  return recorded.map((r) => r.deliveryId);
}
