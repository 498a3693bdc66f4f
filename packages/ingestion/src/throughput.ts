import type { Db } from '@ams/db';
import { BatchSpan, embeddingBatchesRepository, embeddingQueueRepository } from '@ams/db';

/**
 * Memories per second the workers embed when busy: for each worker, its memories over the time
 * it had at least one batch running (the union of its batches' spans, so batches running side by
 * side are not counted twice and an idle minute does not read as a slow worker), summed over
 * workers. null without any batch.
 */
export function busyRate(batches: BatchSpan[]): number | null {
  if (batches.length === 0) return null;
  const byWorker = new Map<string, BatchSpan[]>();
  for (const b of batches) byWorker.set(b.worker, [...(byWorker.get(b.worker) ?? []), b]);
  let rate = 0;
  for (const spans of byWorker.values()) {
    spans.sort((a, b) => a.startedMs - b.startedMs);
    let busyMs = 0;
    let [from, to] = [spans[0]!.startedMs, spans[0]!.finishedMs];
    for (const s of spans.slice(1)) {
      if (s.startedMs > to) {
        busyMs += to - from;
        [from, to] = [s.startedMs, s.finishedMs];
      } else to = Math.max(to, s.finishedMs);
    }
    busyMs += to - from;
    rate += spans.reduce((n, s) => n + s.memories, 0) / (Math.max(1, busyMs) / 1000);
  }
  return rate;
}

export interface CompletionEstimator {
  /** Seconds until a memory queued now is ready (an integer, at least 1). */
  seconds(): Promise<number>;
}

/**
 * The v2 create's estimated_completion_seconds: the backlog ahead of a new memory over the
 * measured busy rate (last minute, all workers), plus one batch wait. Before any measurement it
 * assumes one full batch a second. Cached for `ttlMs`: every create asks, the answer moves slowly.
 * Past its age the cached answer is still given while a fresh one is computed behind it, so only
 * the first create of a process waits for the two queries (they were the v2 ack's p99).
 */
export function completionEstimator(db: Db, settings: { batchSize: number; batchWaitMs: number }, ttlMs = 1_000): CompletionEstimator {
  let last: number | undefined;
  let computedAt = 0;
  let refreshing: Promise<number> | undefined;
  const compute = async () => {
    const [{ pending, processing }, batches] = await Promise.all([embeddingQueueRepository.waiting(db), embeddingBatchesRepository.recent(db)]);
    const rate = busyRate(batches) ?? settings.batchSize;
    last = Math.max(1, Math.ceil(settings.batchWaitMs / 1000 + (pending + processing) / rate));
    return last;
  };
  return {
    seconds() {
      if (!refreshing && Date.now() - computedAt > ttlMs) {
        computedAt = Date.now();
        refreshing = compute().finally(() => (refreshing = undefined));
        refreshing.catch(() => (computedAt = 0));
      }
      return last !== undefined ? Promise.resolve(last) : refreshing!;
    },
  };
}
