import type { Knex } from 'knex';

export const EVENT_TYPES = ['memory.created', 'memory.updated', 'memory.deleted', 'embedding.completed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface RecordedEvent {
  eventId: string;
  deliveryIds: string[];
}

export const webhookDeliveriesRepository = {
  /**
   * The transactional outbox: call with the transaction that makes the change. Writes one pending
   * delivery per enabled webhook of the account subscribed to the event (empty event_types = all),
   * all sharing one event id. One statement, whatever the number of webhooks.
   */
  async recordEvent(
    trx: Knex,
    e: { accountId: string; type: EventType; data: Record<string, unknown>; eventId: string; createdAt: Date },
  ): Promise<RecordedEvent> {
    const payload = { id: e.eventId, type: e.type, created_at: e.createdAt.toISOString(), data: e.data };
    const { rows } = await trx.raw(
      `INSERT INTO webhook_deliveries (account_id, webhook_id, event_id, event_type, payload)
       SELECT w.account_id, w.id, ?, ?, ?::jsonb
         FROM webhooks w
        WHERE w.account_id = ? AND w.enabled AND (cardinality(w.event_types) = 0 OR ? = ANY (w.event_types))
       RETURNING id`,
      [e.eventId, e.type, JSON.stringify(payload), e.accountId, e.type],
    );
    return { eventId: e.eventId, deliveryIds: (rows as Array<{ id: string }>).map((r) => r.id) };
  },

  /** A v2 create's one-shot `webhook_url` notification: a delivery with a target URL and no webhook. */
  async recordOneShot(
    trx: Knex,
    e: { accountId: string; type: EventType; data: Record<string, unknown>; eventId: string; createdAt: Date; url: string },
  ): Promise<string> {
    const payload = { id: e.eventId, type: e.type, created_at: e.createdAt.toISOString(), data: e.data };
    const [row] = await trx('webhook_deliveries')
      .insert({ account_id: e.accountId, target_url: e.url, event_id: e.eventId, event_type: e.type, payload })
      .returning('id');
    return (row as { id: string }).id;
  },
};
