import { embeddingQueueRepository } from '@ams/db';
import { BatchResult, embedBatch, IngestionDeps } from './embed-batch';

export interface WorkerSettings {
  concurrency: number;
  batchSize: number;
  batchWaitMs: number;
  stuckAfterMs: number;
  reconcileIntervalMs: number;
}

export interface WorkerCounters {
  batches: number;
  ready: number;
  failed: number;
  retrying: number;
  duplicates: number;
}

/**
 * Turns pending memories into embedded ones. Notifications (queue jobs, or in-process calls) only
 * say "there is work": after `batchWaitMs` the worker claims up to `batchSize` memories from the
 * database and embeds them in one model call, so jobs that arrive together share a batch. A sweep
 * every `reconcileIntervalMs` also claims memories left pending or stuck in processing.
 */
export class EmbeddingWorker {
  readonly counters: WorkerCounters = { batches: 0, ready: 0, failed: 0, retrying: 0, duplicates: 0 };
  private readonly inflight = new Set<Promise<void>>();
  private flushTimer?: NodeJS.Timeout;
  private sweepTimer?: NodeJS.Timeout;
  private draining = false;
  private stopped = false;

  constructor(
    private readonly deps: IngestionDeps,
    private readonly settings: WorkerSettings,
  ) {}

  start(): void {
    this.sweepTimer = setInterval(() => void this.drain(), this.settings.reconcileIntervalMs);
    void this.drain();
  }

  /** Work has arrived; batch whatever else arrives within batchWaitMs. */
  notify(): void {
    if (this.stopped || this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.drain();
    }, this.settings.batchWaitMs);
  }

  /** Claims and embeds batches until nothing is waiting or every slot is busy. */
  async drain(): Promise<void> {
    if (this.draining || this.stopped) return;
    this.draining = true;
    try {
      while (!this.stopped && this.inflight.size < this.settings.concurrency) {
        const rows = await embeddingQueueRepository.claim(this.deps.db, this.settings.batchSize, this.settings.stuckAfterMs);
        if (rows.length === 0) break;
        const task: Promise<void> = embedBatch(this.deps, rows)
          .then((r) => this.count(r))
          .catch((err: Error) => {
            this.deps.logger.error('embedding batch crashed', { error: err.message });
          })
          .finally(() => {
            this.inflight.delete(task);
            if (!this.stopped) void this.drain();
          });
        this.inflight.add(task);
      }
    } catch (err) {
      this.deps.logger.warn('embedding claim failed', { error: (err as Error).message });
    } finally {
      this.draining = false;
    }
  }

  private count(r: BatchResult): void {
    this.counters.batches++;
    this.counters.ready += r.ready;
    this.counters.failed += r.failed;
    this.counters.retrying += r.retrying;
    this.counters.duplicates += r.duplicates;
  }

  /** Claims nothing new and lets batches in flight finish (their rows end ready, pending or failed). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    await Promise.allSettled([...this.inflight]);
  }
}
