import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from '@ams/core';
import { embeddingQueueRepository, memoriesRepository, MemoryRow, webhookDeliveriesRepository } from '@ams/db';
import { Embedder, toPgVector } from '@ams/embeddings';

export interface IngestionDeps {
  db: Knex;
  embedder: Embedder;
  logger: Logger;
  maxAttempts: number;
  /** Called with webhook deliveries recorded in a committed transaction. */
  onDeliveries?: (accountId: string, deliveryIds: string[]) => void;
}

export interface BatchResult {
  ready: number;
  failed: number;
  retrying: number;
  duplicates: number;
}

/**
 * Embeds claimed memories in ONE model call, then per memory, in one transaction: store the vector
 * (only if the claim still holds), check dedup if the create asked for it, and record
 * embedding.completed (plus the create's one-shot webhook_url notification) in the outbox.
 */
export async function embedBatch(deps: IngestionDeps, rows: MemoryRow[]): Promise<BatchResult> {
  const result: BatchResult = { ready: 0, failed: 0, retrying: 0, duplicates: 0 };
  if (rows.length === 0) return result;
  const started = Date.now();
  let vectors: Float32Array[];
  try {
    vectors = await deps.embedder.embed(rows.map((r) => r.content));
  } catch (err) {
    for (const row of rows) {
      const final = row.embedding_attempts >= deps.maxAttempts;
      await embeddingQueueRepository.fail(deps.db, row, (err as Error).message, final);
      result[final ? 'failed' : 'retrying']++;
    }
    deps.logger.warn('embedding batch failed', { memories: rows.length, error: (err as Error).message });
    return result;
  }
  for (const [i, row] of rows.entries()) {
    const vector = toPgVector(vectors[i]!);
    const outcome = await deps.db.transaction(async (trx) => {
      const done = await embeddingQueueRepository.complete(trx, row, vector, deps.embedder.model);
      if (!done) return undefined;
      if (done.dedup_threshold !== null) {
        const nearest = await memoriesRepository.nearestOfAgent(trx, done.account_id, done.agent_id, vector, deps.embedder.model, done.id);
        if (nearest && nearest.similarity >= done.dedup_threshold) {
          // The create asked for dedup: the earlier memory stands, this one is set aside (recoverable).
          await embeddingQueueRepository.setAsideAsDuplicate(trx, done, nearest.id);
          return { row: done, deliveryIds: [] as string[], duplicate: true };
        }
      }
      const eventId = crypto.randomUUID();
      const createdAt = new Date();
      const data = {
        memory_id: done.id,
        agent_id: done.agent_id,
        content: done.content,
        status: 'ready',
        model: deps.embedder.model,
        dimensions: deps.embedder.dimensions,
      };
      const { deliveryIds } = await webhookDeliveriesRepository.recordEvent(trx, { accountId: done.account_id, type: 'embedding.completed', data, eventId, createdAt });
      if (done.webhook_url) {
        deliveryIds.push(
          await webhookDeliveriesRepository.recordOneShot(trx, { accountId: done.account_id, type: 'embedding.completed', data, eventId, createdAt, url: done.webhook_url }),
        );
      }
      return { row: done, deliveryIds, duplicate: false };
    });
    if (!outcome) continue;
    result[outcome.duplicate ? 'duplicates' : 'ready']++;
    if (outcome.deliveryIds.length) deps.onDeliveries?.(row.account_id, outcome.deliveryIds);
  }
  deps.logger.info('embedded batch', { memories: rows.length, ...result, duration_ms: Date.now() - started, memory_ids: rows.map((r) => r.id) });
  return result;
}
