import { allSettledWithin, SingleFlight } from '@ams/core';
import { embeddingBatchesRepository, embeddingQueueRepository, MemoryRow } from '@ams/db';
import { BatchResult, embedBatch, IngestionDeps } from './embed-batch';

export interface WorkerSettings {
  /** Batches in the model at once. */
  concurrency: number;
  batchSize: number;
  /** After a notification while batches are running, wait this long for more work to share the next one. */
  batchWaitMs: number;
  /** A claim with no heartbeat for this long belongs to a dead worker. */
  stuckAfterMs: number;
  /** How often the database is swept for work no notification announced. */
  reconcileIntervalMs: number;
}

export interface WorkerCounters {
  batches: number;
  ready: number;
  duplicates: number;
  failed: number;
  retrying: number;
  lost: number;
  released: number;
}

/**
 * Turns pending memories into embedded ones; the same code runs as the embedding-worker process
 * (woken by `embedding` queue jobs) and inside the API in embedded mode (woken in-process).
 *
 * Notifications only say "there is work": the worker claims up to `batchSize` memories from
 * PostgreSQL (at once when idle, `batchWaitMs` later when busy) and embeds them in one model call,
 * so jobs that arrive together share a batch. The reconciler's sweep, every `reconcileIntervalMs`, claims whatever no notification
 * announced: memories whose job a flushed or restarted Redis lost, retries whose backoff is over,
 * and claims of a worker that died (no heartbeat for `stuckAfterMs`). Claims are fenced by their
 * attempt count, so several workers never both store a result for one memory.
 */
export class EmbeddingWorker {
  readonly counters: WorkerCounters = { batches: 0, ready: 0, duplicates: 0, failed: 0, retrying: 0, lost: 0, released: 0 };
  private readonly inflight = new Map<number, { rows: MemoryRow[]; task: Promise<void> }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private batchSeq = 0;
  private flushTimer?: NodeJS.Timeout;
  private sweepTimer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  private readonly drainer = new SingleFlight(() => this.drainPass());
  private stopped = false;
  private lastBatchEnd = 0;

  constructor(
    private readonly deps: IngestionDeps,
    private readonly settings: WorkerSettings,
    private readonly onBatch?: (result: BatchResult) => void,
  ) {}

  get inFlight(): number {
    return this.inflight.size;
  }

  /** Sweeps at once (a restarted worker resumes where the dead one stopped), then on the interval. */
  start(): void {
    this.sweepTimer = setInterval(() => void this.sweep(), this.settings.reconcileIntervalMs);
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), Math.max(250, Math.floor(this.settings.stuckAfterMs / 3)));
    void this.sweep();
  }

  /**
   * Work has arrived. Idle (no batch running, none ended within batchWaitMs): claim it at once,
   * since waiting would only add to its time to ready. Otherwise a burst is under way: claim after
   * batchWaitMs, with whatever else arrives meanwhile.
   */
  notify(): void {
    if (this.stopped || this.flushTimer) return;
    if (this.inflight.size === 0 && Date.now() - this.lastBatchEnd > this.settings.batchWaitMs) {
      void this.drain();
      return;
    }
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.drain();
    }, this.settings.batchWaitMs);
  }

  /** The reconciler: ends memories whose every attempt died with its worker, then claims what is due. */
  async sweep(): Promise<void> {
    if (this.stopped) return;
    try {
      const abandoned = await embeddingQueueRepository.failAbandoned(this.deps.db, this.settings.stuckAfterMs, this.deps.maxAttempts);
      if (abandoned) this.deps.logger.warn('memories failed: their worker died on every attempt', { memories: abandoned });
      await embeddingBatchesRepository.prune(this.deps.db);
    } catch (err) {
      this.deps.logger.warn('embedding sweep failed', { error: (err as Error).message });
    }
    await this.drain();
  }

  /** Claims and starts batches while slots are free and work is waiting. Concurrent calls share one pass. */
  drain(): Promise<void> {
    return this.drainer.run();
  }

  private async drainPass(): Promise<boolean> {
    while (!this.stopped && this.inflight.size < this.settings.concurrency) {
      let rows: MemoryRow[];
      try {
        rows = await embeddingQueueRepository.claim(this.deps.db, {
          limit: this.settings.batchSize,
          stuckAfterMs: this.settings.stuckAfterMs,
          maxAttempts: this.deps.maxAttempts,
        });
      } catch (err) {
        this.deps.logger.warn('embedding claim failed; the next sweep tries again', { error: (err as Error).message });
        return false;
      }
      if (rows.length === 0) break;
      this.run(rows);
    }
    return !this.stopped;
  }

  private run(rows: MemoryRow[]): void {
    const id = ++this.batchSeq;
    const task = embedBatch(this.deps, rows)
      .then((r) => this.settled(r))
      .catch(async (err: Error) => {
        // Typically the database failed mid-batch: hand the claims back at once (fenced, so a
        // claim another worker took meanwhile is untouched); if even that fails they go stale.
        const released = await embeddingQueueRepository.release(this.deps.db, rows).then(
          () => true,
          () => false,
        );
        this.deps.logger.error('embedding batch crashed', { error: err.message, released, memory_ids: rows.map((r) => r.id) });
      })
      .finally(() => {
        this.inflight.delete(id);
        this.lastBatchEnd = Date.now();
        // A pending flush claims what arrived during this batch together; else keep draining the backlog.
        if (!this.stopped && !this.flushTimer) void this.drain();
      });
    this.inflight.set(id, { rows, task });
  }

  private settled(r: BatchResult): void {
    this.counters.batches++;
    this.counters.ready += r.ready;
    this.counters.duplicates += r.duplicates;
    this.counters.failed += r.failed;
    this.counters.retrying += r.retrying;
    this.counters.lost += r.lost;
    this.onBatch?.(r);
    // Wake up for the retry rather than waiting for the next sweep.
    if (r.retryAt && !this.stopped) this.wakeAt(r.retryAt);
  }

  private wakeAt(when: Date): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        void this.drain();
      },
      Math.max(0, when.getTime() - Date.now()) + 10,
    );
    timer.unref();
    this.timers.add(timer);
  }

  /** Long batches keep their claims: the rows' stuck deadline moves while this worker lives. */
  private async heartbeat(): Promise<void> {
    const rows = [...this.inflight.values()].flatMap((b) => b.rows);
    await embeddingQueueRepository.heartbeat(this.deps.db, rows).catch((err: Error) => {
      this.deps.logger.warn('embedding heartbeat failed', { error: err.message });
    });
  }

  /**
   * Claims nothing new and waits up to `drainMs` for batches in flight; claims still held after
   * that are given back (pending at once, for another worker), and a late outcome is discarded by
   * the fence. The heartbeat runs until the end, so a long drain is not mistaken for a death.
   */
  async stop(drainMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    clearTimeout(this.flushTimer);
    for (const t of this.timers) clearTimeout(t);
    await this.drainer.current;
    const drained = await allSettledWithin([...this.inflight.values()].map((b) => b.task), drainMs);
    clearInterval(this.heartbeatTimer);
    if (drained) return;
    const rows = [...this.inflight.values()].flatMap((b) => b.rows);
    try {
      await embeddingQueueRepository.release(this.deps.db, rows);
      this.counters.released += rows.length;
      this.deps.logger.warn('released memories still embedding at shutdown', { memory_ids: rows.map((r) => r.id) });
    } catch (err) {
      this.deps.logger.warn('could not release embedding claims; they are retried when they go stale', { error: (err as Error).message });
    }
  }
}
