import { allSettledWithin, SingleFlight, type Logger } from '@ams/core';
import { ClaimedDelivery, webhookDeliveriesRepository, type Knex } from '@ams/db';
import { AttemptObservation, deliverDelivery, DeliverySettings } from './deliver-delivery';
import { Slots } from './slots';

export interface DispatcherSettings extends DeliverySettings {
  /** Deliveries in flight at once, whether they came from the queue or the sweep. */
  concurrency: number;
  reconcileIntervalMs: number;
}

export interface RetryRequest {
  accountId: string;
  deliveryId: string;
  /** Attempts made so far (the retry is attempt attemptsMade + 1). */
  attemptsMade: number;
  runAt: Date;
}

/** Wakes a dispatcher for a retry: a delayed queue job in split mode, a local timer in embedded mode. */
export type RetryScheduler = (retry: RetryRequest) => void;

export interface SweepResult {
  claimed: number;
  /** Of those, deliveries whose previous claim had expired (their dispatcher died mid-delivery). */
  reclaimed: number;
}

/**
 * Delivers webhook events from the outbox. PostgreSQL is the schedule: a delivery is claimed with
 * a lease before it is sent, so any number of dispatchers can run and never attempt one delivery
 * at once, and a killed one loses nothing (its lease runs out). Work arrives by notification
 * (`deliver`: a queue job or an in-process call) and by `sweep`, which the reconciler runs on a
 * timer to pick up whatever a lost notification, a flushed Redis or a dead dispatcher left.
 */
export class WebhookDispatcher {
  private readonly slots: Slots;
  private readonly inflight = new Map<string, { delivery: ClaimedDelivery; task: Promise<void> }>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly scheduleRetry: RetryScheduler;
  private readonly onAttempt?: (o: AttemptObservation) => void;
  private readonly sweeper = new SingleFlight(() => this.sweepPass());
  private sweepTotal: SweepResult = { claimed: 0, reclaimed: 0 };
  /** The last sweep filled every slot: more may be due, so sweep again when a slot frees up. */
  private backlog = false;
  private stopped = false;

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
    private readonly settings: DispatcherSettings,
    /** onAttempt: what became of each attempt (the dispatcher's metrics). */
    options: { scheduleRetry?: RetryScheduler; onAttempt?: (o: AttemptObservation) => void } = {},
  ) {
    this.slots = new Slots(settings.concurrency);
    this.scheduleRetry = options.scheduleRetry ?? ((retry) => this.retryInProcess(retry));
    this.onAttempt = options.onAttempt;
  }

  /** A claim outlives one attempt (bounded by the receiver timeout) with room to record the outcome. */
  get leaseMs(): number {
    return this.settings.timeoutMs + Math.min(this.settings.timeoutMs, 10_000);
  }

  get inFlight(): number {
    return this.inflight.size;
  }

  /**
   * A notification that one delivery may be due. Waits for a free slot, then claims and sends it;
   * does nothing when it is not due, already claimed, or finished. Never rejects: whatever fails
   * here is found again by the sweep.
   */
  async deliver(accountId: string, deliveryId: string): Promise<void> {
    if (this.stopped) return;
    await this.slots.acquire();
    let claimed: ClaimedDelivery | undefined;
    try {
      if (!this.stopped) [claimed] = await webhookDeliveriesRepository.claimDue(this.db, this.leaseMs, 1, { accountId, id: deliveryId });
    } catch (err) {
      this.logger.warn('webhook delivery claim failed; the sweep will retry it', { delivery_id: deliveryId, error: (err as Error).message });
    }
    if (!claimed) {
      this.slots.release();
      return;
    }
    await this.run(claimed);
  }

  /** Claims and starts everything due, as far as free slots allow. Concurrent calls share one sweep. */
  sweep(): Promise<SweepResult> {
    if (!this.sweeper.current) this.sweepTotal = { claimed: 0, reclaimed: 0 };
    const total = this.sweepTotal;
    return this.sweeper.run().then(() => total);
  }

  private async sweepPass(): Promise<boolean> {
    const total = this.sweepTotal;
    for (;;) {
      if (this.stopped) return false;
      const wanted = this.slots.takeUpTo(this.settings.concurrency);
      if (wanted === 0) {
        this.backlog = true;
        return false;
      }
      let claimed: ClaimedDelivery[];
      try {
        claimed = await webhookDeliveriesRepository.claimDue(this.db, this.leaseMs, wanted);
      } catch (err) {
        this.slots.release(wanted);
        this.logger.warn('webhook outbox sweep failed', { error: (err as Error).message });
        return false;
      }
      this.slots.release(wanted - claimed.length);
      for (const d of claimed) void this.run(d);
      total.claimed += claimed.length;
      total.reclaimed += claimed.filter((d) => d.reclaimed).length;
      if (claimed.length < wanted) {
        this.backlog = false;
        return true;
      }
    }
  }

  /** Sends one claimed delivery; its slot is already taken and is released at the end. */
  private run(d: ClaimedDelivery): Promise<void> {
    if (d.reclaimed) {
      this.logger.warn('webhook delivery reclaimed: its previous claim expired mid-delivery', { delivery_id: d.id, event_id: d.event_id });
    }
    const task = deliverDelivery(this.db, this.logger, this.settings, d, this.onAttempt)
      .then((result) => {
        if (result?.status === 'pending' && result.nextAttemptAt && !this.stopped) {
          this.scheduleRetry({ accountId: d.account_id, deliveryId: d.id, attemptsMade: d.attempts + 1, runAt: result.nextAttemptAt });
        }
      })
      .catch((err: Error) => {
        // Typically the database went away: the claim expires and the delivery is attempted again.
        this.logger.error('webhook delivery crashed; it is retried when its claim expires', { delivery_id: d.id, error: err.message });
      })
      .finally(() => {
        this.inflight.delete(d.id);
        this.slots.release();
        if (this.backlog && !this.stopped) void this.sweep();
      });
    this.inflight.set(d.id, { delivery: d, task });
    return task;
  }

  /** Embedded mode's retries: a timer in this process (the sweep covers a restart in between). */
  private retryInProcess(retry: RetryRequest): void {
    const timer = setTimeout(
      () => {
        this.retryTimers.delete(timer);
        void this.deliver(retry.accountId, retry.deliveryId);
      },
      Math.max(0, retry.runAt.getTime() - Date.now()),
    );
    timer.unref();
    this.retryTimers.add(timer);
  }

  /**
   * Takes no new work and waits up to `drainMs` for attempts in flight to finish; claims still
   * held after that are given back (due at once, for another dispatcher), and any outcome that
   * arrives later is discarded by the claim's fence.
   */
  async stop(drainMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.stopped = true;
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    await this.sweeper.current;
    const drained = await allSettledWithin([...this.inflight.values()].map((f) => f.task), drainMs);
    if (drained) return;
    const unfinished = [...this.inflight.values()].map((f) => f.delivery);
    try {
      await webhookDeliveriesRepository.releaseClaims(this.db, unfinished);
      this.logger.warn('released webhook deliveries still in flight at shutdown', { delivery_ids: unfinished.map((d) => d.id) });
    } catch (err) {
      this.logger.warn('could not release webhook claims; they are retried when they expire', { error: (err as Error).message });
    }
  }
}
