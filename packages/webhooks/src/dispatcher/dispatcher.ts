import type { Knex } from 'knex';
import type { Logger } from '@ams/core';
import { DeliveryRow, webhookDeliveriesRepository } from '@ams/db';
import { deliverDelivery, DeliverySettings } from './deliver-delivery';

export interface DispatcherSettings extends DeliverySettings {
  concurrency: number;
  reconcileIntervalMs: number;
}


/**
 * Delivers webhook events from the outbox. PostgreSQL is the schedule: deliveries are claimed
 * with a lease, so any number of dispatchers can run and a killed one loses nothing. Work arrives
 * by notification (queue job or in-process call) and by the reconciler's sweep, which also
 * catches everything a lost notification or a flushed Redis left behind.
 */
export class WebhookDispatcher {
  private readonly inflight = new Set<Promise<void>>();
  private readonly wakeTimers = new Set<NodeJS.Timeout>();
  private sweepTimer?: NodeJS.Timeout;
  private sweeping = false;
  private stopped = false;

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
    private readonly settings: DispatcherSettings,
  ) {}

  /** A claim outlives any attempt (one receiver timeout) with room to record the outcome. */
  private get leaseMs(): number {
    return this.settings.timeoutMs * 2 + 1_000;
  }

  start(): void {
    this.sweepTimer = setInterval(() => void this.sweep(), this.settings.reconcileIntervalMs);
    void this.sweep();
  }

  /** Claims and delivers everything due, up to the free concurrency. */
  async sweep(): Promise<void> {
    if (this.sweeping || this.stopped) return;
    this.sweeping = true;
    try {
      for (;;) {
        const free = this.settings.concurrency - this.inflight.size;
        if (free <= 0 || this.stopped) break;
        const claimed = await webhookDeliveriesRepository.claimDue(this.db, this.leaseMs, free);
        if (claimed.length === 0) break;
        claimed.forEach((d) => this.run(d));
      }
    } catch (err) {
      this.logger.warn('webhook sweep failed', { error: (err as Error).message });
    } finally {
      this.sweeping = false;
    }
  }

  /** A notification that a delivery is ready (queue job or in-process). */
  async deliver(accountId: string, deliveryId: string): Promise<void> {
    if (this.stopped) return;
    const [claimed] = await webhookDeliveriesRepository.claimDue(this.db, this.leaseMs, 1, { accountId, id: deliveryId });
    if (claimed) await this.run(claimed);
  }

  private run(d: DeliveryRow): Promise<void> {
    const task: Promise<void> = deliverDelivery(this.db, this.logger, this.settings, d)
      .then((result) => {
        if (result?.status === 'pending' && result.nextAttemptAt) this.wakeAt(result.nextAttemptAt);
      })
      .catch((err: Error) => {
        this.logger.error('webhook delivery crashed', { delivery_id: d.id, error: err.message });
      })
      .finally(() => {
        this.inflight.delete(task);
        if (!this.stopped) void this.sweep();
      });
    this.inflight.add(task);
    return task;
  }

  /** Retries are due at a time: wake up for it rather than waiting for the next sweep. */
  private wakeAt(when: Date): void {
    const timer = setTimeout(() => {
      this.wakeTimers.delete(timer);
      void this.sweep();
    }, Math.max(0, when.getTime() - Date.now()) + 5);
    this.wakeTimers.add(timer);
  }

  /** Takes no new work, lets attempts in flight finish, then returns. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    for (const t of this.wakeTimers) clearTimeout(t);
    this.wakeTimers.clear();
    await Promise.allSettled([...this.inflight]);
  }
}
