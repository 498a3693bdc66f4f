import { periodic, type Logger, type PeriodicTask } from '@ams/core';
import { Db, memoryExpiryRepository, memoryVersionsRepository } from '@ams/db';
import type { Dispatch } from './deps';
import { dispatchAfterCommit, memoryEventData, recordEvents } from './events';
import { asActor } from './history';

export interface LifecycleSettings {
  sweepIntervalMs: number;
  /** 0: versions are kept for ever. */
  historyRetentionDays: number;
  /** 0: no bound per memory. */
  historyMaxVersions: number;
}

export interface LifecycleDeps {
  db: Db;
  logger: Logger;
  dispatch?: Dispatch;
}

/** Rows per statement; a sweep takes at most MAX_BATCHES of each kind, the rest waits for the next. */
const BATCH = 500;
const MAX_BATCHES = 20;

/**
 * Memory housekeeping on a timer, beside the embedding worker's reconciler (the same processes run
 * it: the worker processes with queues, the API without): soft-deletes memories whose expires_at
 * has passed, each with a memory.expired event and an `expire` version, and prunes history beyond
 * its retention. Reads never wait for it: they leave expired memories out themselves
 * (excludeExpired). Bounded batches keep each transaction short; several sweepers share the work.
 */
export class MemoryLifecycleSweep {
  private task?: PeriodicTask;

  constructor(
    private readonly deps: LifecycleDeps,
    private readonly settings: LifecycleSettings,
  ) {}

  /** Sweeps at once, then on the interval. */
  start(): void {
    this.task ??= periodic({ name: 'memory lifecycle sweep', intervalMs: this.settings.sweepIntervalMs, logger: this.deps.logger }, () => this.sweep());
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    this.task = undefined;
  }

  /** One pass: expiry, then history retention. */
  async sweep(): Promise<{ expired: number; pruned: number }> {
    let expired = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const n = await this.expireBatch();
      expired += n;
      if (n < BATCH) break;
    }
    let pruned = 0;
    const { historyRetentionDays: days, historyMaxVersions: keep } = this.settings;
    const olderThan = days > 0 ? new Date(Date.now() - days * 86_400_000) : undefined;
    for (let i = 0; i < MAX_BATCHES && (olderThan || keep > 0); i++) {
      const n = await memoryVersionsRepository.prune(this.deps.db, { olderThan, keep: keep || undefined }, BATCH);
      pruned += n;
      if (n < BATCH) break;
    }
    if (expired || pruned) this.deps.logger.info('memory lifecycle sweep', { expired, versions_pruned: pruned });
    return { expired, pruned };
  }

  private async expireBatch(): Promise<number> {
    const { count, deliveries } = await asActor(this.deps.db, { change: 'expire' }, async (trx) => {
      const rows = await memoryExpiryRepository.expireDue(trx, BATCH);
      const deliveries = await recordEvents(
        trx,
        rows.map((row) => ({
          accountId: row.account_id,
          type: 'memory.expired' as const,
          data: { ...memoryEventData(row), expires_at: row.expires_at?.toISOString() ?? null, deleted_at: row.deleted_at?.toISOString() ?? null, version: row.version },
        })),
      );
      return { count: rows.length, deliveries };
    });
    dispatchAfterCommit(this.deps.dispatch, deliveries);
    return count;
  }
}
