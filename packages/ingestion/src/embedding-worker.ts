import { embeddingBatchesRepository, embeddingQueueRepository, MemoryRow } from '@ams/db';
import { LeaseLoop } from '@ams/jobs';
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
 * A retry is woken this long after its retry time: the claim judges it due by the database's
 * clock, and a timer may fire a millisecond early.
 */
const RETRY_WAKE_MARGIN_MS = 10;

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
 *
 * The claiming, slots, sweep, heartbeat and drain are the shared lease loop's; a unit of work is
 * one batch. Retries and their backoff are per memory, in its row (embedBatch sets them).
 */
export class EmbeddingWorker {
  readonly counters: WorkerCounters = { batches: 0, ready: 0, duplicates: 0, failed: 0, retrying: 0, lost: 0, released: 0 };
  private readonly loop: LeaseLoop<MemoryRow[]>;

  constructor(
    private readonly deps: IngestionDeps,
    private readonly settings: WorkerSettings,
    private readonly onBatch?: (result: BatchResult) => void,
  ) {
    this.loop = new LeaseLoop<MemoryRow[]>(
      {
        claim: (n) => this.claim(n),
        run: (rows) => this.embed(rows),
        release: (batches) => embeddingQueueRepository.release(deps.db, batches.flat()),
        heartbeat: (batches) => embeddingQueueRepository.heartbeat(deps.db, batches.flat()),
        beforeSweep: () => this.failAbandoned(),
      },
      {
        name: 'embedding',
        concurrency: settings.concurrency,
        // One batch per claim, started at once, while slots are free.
        claimLimit: 1,
        batchWaitMs: settings.batchWaitMs,
        // After each batch, claim again (unless a flush will): a claim costs little next to a batch.
        drainAfterEach: true,
        sweepIntervalMs: settings.reconcileIntervalMs,
        // Long batches keep their claims: the rows' stuck deadline moves while this worker lives.
        heartbeatMs: Math.max(250, Math.floor(settings.stuckAfterMs / 3)),
        releaseFailedHint: 'they are retried when they go stale',
      },
      deps.logger,
    );
  }

  /** Batches in the model now. */
  get inFlight(): number {
    return this.loop.inFlight;
  }

  /** Sweeps at once (a restarted worker resumes where the dead one stopped), then on the interval. */
  start(): void {
    void this.loop.start();
  }

  /**
   * Work has arrived. Idle (no batch running, none ended within batchWaitMs): claim it at once,
   * since waiting would only add to its time to ready. Otherwise a burst is under way: claim after
   * batchWaitMs, with whatever else arrives meanwhile.
   */
  notify(): void {
    this.loop.notify();
  }

  /** The reconciler: ends memories whose every attempt died with its worker, then claims what is due. */
  async sweep(): Promise<void> {
    await this.loop.sweep();
  }

  /** Claims and starts batches while slots are free and work is waiting. Concurrent calls share one pass. */
  async drain(): Promise<void> {
    await this.loop.drain();
  }

  /** Up to `n` batches, in one statement. */
  private async claim(n: number): Promise<MemoryRow[][]> {
    const { batchSize } = this.settings;
    const rows = await embeddingQueueRepository.claim(this.deps.db, {
      limit: n * batchSize,
      stuckAfterMs: this.settings.stuckAfterMs,
      maxAttempts: this.deps.maxAttempts,
    });
    const batches: MemoryRow[][] = [];
    for (let i = 0; i < rows.length; i += batchSize) batches.push(rows.slice(i, i + batchSize));
    return batches;
  }

  private async failAbandoned(): Promise<void> {
    const abandoned = await embeddingQueueRepository.failAbandoned(this.deps.db, this.settings.stuckAfterMs, this.deps.maxAttempts);
    if (abandoned) this.deps.logger.warn('memories failed: their worker died on every attempt', { memories: abandoned });
    await embeddingBatchesRepository.prune(this.deps.db);
  }

  /** One batch; never rejects. */
  private embed(rows: MemoryRow[]): Promise<void> {
    return embedBatch(this.deps, rows)
      .then((r) => this.settled(r))
      .catch(async (err: Error) => {
        // Typically the database failed mid-batch: hand the claims back at once (fenced, so a
        // claim another worker took meanwhile is untouched); if even that fails they go stale.
        const released = await embeddingQueueRepository.release(this.deps.db, rows).then(
          () => true,
          () => false,
        );
        this.deps.logger.error('embedding batch crashed', { error: err.message, released, memory_ids: rows.map((r) => r.id) });
      });
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
    if (r.retryAt) this.loop.wakeAt(new Date(r.retryAt.getTime() + RETRY_WAKE_MARGIN_MS));
  }

  /**
   * Claims nothing new and waits up to `drainMs` for batches in flight; claims still held after
   * that are given back (pending at once, for another worker), and a late outcome is discarded by
   * the fence. The heartbeat runs until the end, so a long drain is not mistaken for a death.
   */
  async stop(drainMs = Number.POSITIVE_INFINITY): Promise<void> {
    const released = (await this.loop.stop(drainMs)).flat();
    if (released.length === 0) return;
    this.counters.released += released.length;
    this.deps.logger.warn('released memories still embedding at shutdown', { memory_ids: released.map((r) => r.id) });
  }
}
