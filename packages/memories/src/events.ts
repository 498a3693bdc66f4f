import crypto from 'node:crypto';
import type { Db, MemoryRow, OutboxEvent, RecordedDelivery } from '@ams/db';
import { webhookDeliveriesRepository } from '@ams/db';
import type { Dispatch } from './deps';

/** The fields every memory event carries (memory.created, .updated, .deleted, embedding.completed). */
export function memoryEventData(row: Pick<MemoryRow, 'id' | 'agent_id' | 'content' | 'embedding_status'>) {
  return {
    memory_id: row.id,
    agent_id: row.agent_id,
    content: row.content,
    status: row.embedding_status,
  };
}

/** embedding.completed: the memory event fields, plus what the embedding was made with and the dedup outcome. */
export function embeddingCompletedData(row: MemoryRow, embedder: { model: string; dimensions: number }, duplicateOf: string | null) {
  return { ...memoryEventData(row), status: 'ready', model: embedder.model, dimensions: embedder.dimensions, duplicate_of: duplicateOf };
}

/** An event to record; `url`: a v2 create's one-shot `webhook_url`, notified besides the account's webhooks. */
export type MemoryEvent = Pick<OutboxEvent, 'accountId' | 'type' | 'data'> & { url?: string | null };

/**
 * Records events in the caller's transaction (the outbox), for the account's subscribed webhooks
 * and any one-shot URL, and returns the deliveries to hand to the dispatcher once that transaction
 * has committed (dispatchAfterCommit). Losing the hand-off loses nothing: the dispatcher's
 * reconciler finds due rows in the database.
 */
export async function recordEvents(trx: Db, events: MemoryEvent[]): Promise<RecordedDelivery[]> {
  const outbox = outboxEvents(events);
  return [
    ...(await webhookDeliveriesRepository.recordEvents(trx, outbox)),
    ...(await webhookDeliveriesRepository.recordOneShots(trx, outbox.flatMap((e) => (e.url ? [{ ...e, url: e.url }] : [])))),
  ];
}

/** Events as the outbox stores them: an id each, and the time they happened. */
export function outboxEvents(events: MemoryEvent[]): Array<OutboxEvent & { url?: string | null }> {
  const createdAt = new Date();
  return events.map((e) => ({ accountId: e.accountId, type: e.type, data: e.data, eventId: crypto.randomUUID(), createdAt, url: e.url }));
}

/** One event of one account. */
export async function recordEvent(trx: Db, accountId: string, type: MemoryEvent['type'], data: Record<string, unknown>): Promise<RecordedDelivery[]> {
  return recordEvents(trx, [{ accountId, type, data }]);
}

/** Hands committed deliveries to the dispatcher, per account; the reconciler covers a lost hand-off. */
export function dispatchAfterCommit(dispatch: Dispatch | undefined, deliveries: RecordedDelivery[]): void {
  const byAccount = new Map<string, string[]>();
  for (const d of deliveries) byAccount.set(d.accountId, [...(byAccount.get(d.accountId) ?? []), d.deliveryId]);
  for (const [accountId, ids] of byAccount) dispatch?.(accountId, ids);
}
