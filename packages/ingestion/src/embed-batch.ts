import { withTimeout } from '@ams/core';
import { embeddingBatchesRepository, embeddingQueueRepository, MemoryRow } from '@ams/db';
import { Embedder, toPgVector } from '@ams/embeddings';
import { completeEmbeddings, dispatchAfterCommit, MemoryDeps } from '@ams/memories/worker';

export interface IngestionDeps extends Pick<MemoryDeps, 'db' | 'embedder' | 'logger'> {
  /** Names this process in embedding_batches (the measured rate is per worker). */
  workerId: string;
  maxAttempts: number;
  /** The first retry waits this long; each later one twice as long as the one before. */
  retryBaseMs: number;
  /** A model call taking longer fails (its batch is retried). */
  batchTimeoutMs: number;
  /** Called with webhook deliveries recorded in a committed transaction. */
  onDeliveries?: MemoryDeps['dispatch'];
}

export interface BatchResult {
  size: number;
  ready: number;
  duplicates: number;
  /** Failed for good (error set). */
  failed: number;
  /** Failed this attempt, pending again after a backoff; `retryAt` is the earliest. */
  retrying: number;
  retryAt?: Date;
  /** Claims lost to another worker meanwhile (their outcome was discarded). */
  lost: number;
  /** Time in the model, for the whole batch. */
  embedMs: number;
  durationMs: number;
}

const RETRY_CAP_MS = 5 * 60_000;

/** Backoff before attempt `attemptsMade + 1`: base, 2×base, 4×base, … capped at 5 minutes. */
export function retryDelayMs(attemptsMade: number, baseMs: number): number {
  return Math.min(RETRY_CAP_MS, baseMs * 2 ** Math.max(0, attemptsMade - 1));
}

/**
 * One model call for the whole batch. If it throws, each text is tried alone, so one input the
 * model cannot take fails only its own memory.
 */
async function embedAll(embedder: Embedder, texts: string[], timeoutMs: number): Promise<Array<Float32Array | Error>> {
  const embed = (batch: string[]) => withTimeout(embedder.embed(batch), timeoutMs, `the model took longer than ${timeoutMs} ms`);
  try {
    return await embed(texts);
  } catch (err) {
    if (texts.length === 1) return [err as Error];
    const out: Array<Float32Array | Error> = [];
    for (const t of texts) out.push(await embed([t]).then(([v]) => v!, (e: Error) => e));
    return out;
  }
}

/**
 * Embeds claimed memories in one model call, then settles each: ready (or set aside as a
 * duplicate) in one transaction for the batch, pending again after a backoff, or failed with its
 * error after the last attempt. Logs one line per memory with its duration; records the batch
 * for the measured rate.
 */
export async function embedBatch(deps: IngestionDeps, rows: MemoryRow[]): Promise<BatchResult> {
  const started = Date.now();
  const result: BatchResult = { size: rows.length, ready: 0, duplicates: 0, failed: 0, retrying: 0, lost: 0, embedMs: 0, durationMs: 0 };
  if (rows.length === 0) return result;
  const vectors = await embedAll(deps.embedder, rows.map((r) => r.content), deps.batchTimeoutMs);
  result.embedMs = Date.now() - started;

  const embedded: Array<{ row: MemoryRow; vector: string }> = [];
  for (const [i, row] of rows.entries()) {
    const vector = vectors[i]!;
    if (!(vector instanceof Error)) {
      embedded.push({ row, vector: toPgVector(vector) });
      continue;
    }
    const attempt = row.embedding_attempts - row.embedding_attempts_base;
    const final = attempt >= deps.maxAttempts;
    const retryAt = final ? null : new Date(Date.now() + retryDelayMs(attempt, deps.retryBaseMs));
    const settled = await embeddingQueueRepository.fail(deps.db, row, vector.message, retryAt);
    if (!settled) result.lost++;
    else if (retryAt) {
      result.retrying++;
      if (!result.retryAt || retryAt < result.retryAt) result.retryAt = retryAt;
    } else result.failed++;
    deps.logger.warn(final ? 'embedding failed for good' : 'embedding failed; will retry', {
      memory_id: row.id,
      account_id: row.account_id,
      attempt,
      error: vector.message,
      retry_at: retryAt?.toISOString(),
      duration_ms: Date.now() - started,
    });
  }

  const { settled, deliveries } = embedded.length ? await completeEmbeddings(deps.db, deps.embedder, embedded) : { settled: new Map<string, string | null>(), deliveries: [] };
  dispatchAfterCommit(deps.onDeliveries, deliveries);
  const now = Date.now();
  for (const { row } of embedded) {
    const log = { memory_id: row.id, account_id: row.account_id, attempt: row.embedding_attempts - row.embedding_attempts_base, duration_ms: now - started };
    if (!settled.has(row.id)) {
      result.lost++;
      deps.logger.warn('embedding discarded: the claim was lost (another worker re-claimed the memory, or its content changed)', log);
      continue;
    }
    const duplicate = settled.get(row.id);
    result[duplicate ? 'duplicates' : 'ready']++;
    deps.logger.info('memory embedded', { ...log, duplicate_of: duplicate ?? undefined, ready_after_ms: now - row.created_at.getTime() });
  }
  result.durationMs = Date.now() - started;
  deps.logger.debug('embedded batch', { size: rows.length, embed_ms: result.embedMs, duration_ms: result.durationMs });
  const stored = result.ready + result.duplicates;
  if (stored > 0) {
    await embeddingBatchesRepository
      .record(deps.db, { worker: deps.workerId, memories: stored, durationMs: result.durationMs })
      .catch((err: Error) => deps.logger.warn('could not record the batch rate', { error: err.message }));
  }
  return result;
}
