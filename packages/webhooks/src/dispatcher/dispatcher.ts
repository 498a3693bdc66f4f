import type { Logger } from '@ams/core';
import { ClaimedDelivery, webhookDeliveriesRepository, type Knex } from '@ams/db';
import { LeaseLoop } from '@ams/jobs';
import { AttemptObservation, deliverDelivery, DeliverySettings } from './deliver-delivery';

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
 * timer to pick up whatever a lost notification, a flushed Redis or a dead dispatcher left. The
 * claiming, slots, drain and release are the shared lease loop's; a unit of work is one delivery.
 */
export class WebhookDispatcher {
  private readonly loop: LeaseLoop<ClaimedDelivery>;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly scheduleRetry: RetryScheduler;
  private readonly onAttempt?: (o: AttemptObservation) => void;

  constructor(
    private readonly db: Knex,
    private readonly logger: Logger,
    private readonly settings: DispatcherSettings,
    /** onAttempt: what became of each attempt (the dispatcher's metrics). */
    options: { scheduleRetry?: RetryScheduler; onAttempt?: (o: AttemptObservation) => void } = {},
  ) {
    this.scheduleRetry = options.scheduleRetry ?? ((retry) => this.retryInProcess(retry));
    this.onAttempt = options.onAttempt;
    this.loop = new LeaseLoop<ClaimedDelivery>(
      {
        claim: (n) => webhookDeliveriesRepository.claimDue(this.db, this.leaseMs, n),
        run: (d) => this.attempt(d),
        release: (deliveries) => webhookDeliveriesRepository.releaseClaims(this.db, deliveries),
      },
      { name: 'webhook delivery', concurrency: settings.concurrency },
      logger,
    );
  }

  /** A claim outlives one attempt (bounded by the receiver timeout) with room to record the outcome. */
  get leaseMs(): number {
    return this.settings.timeoutMs + Math.min(this.settings.timeoutMs, 10_000);
  }

  get inFlight(): number {
    return this.loop.inFlight;
  }

  /**
   * A notification that one delivery may be due. Waits for a free slot, then claims and sends it;
   * does nothing when it is not due, already claimed, or finished. Never rejects: whatever fails
   * here is found again by the sweep.
   */
  deliver(accountId: string, deliveryId: string): Promise<void> {
    return this.loop.claimOne(async () => (await webhookDeliveriesRepository.claimDue(this.db, this.leaseMs, 1, { accountId, id: deliveryId }))[0]);
  }

  /** Claims and starts everything due, as far as free slots allow. Concurrent calls share one sweep. */
  async sweep(): Promise<SweepResult> {
    const claimed = await this.loop.sweep();
    return { claimed: claimed.length, reclaimed: claimed.filter((d) => d.reclaimed).length };
  }

  /** Sends one claimed delivery. */
  private async attempt(d: ClaimedDelivery): Promise<void> {
    if (d.reclaimed) {
      this.logger.warn('webhook delivery reclaimed: its previous claim expired mid-delivery', { delivery_id: d.id, event_id: d.event_id });
    }
    try {
      const result = await deliverDelivery(this.db, this.logger, this.settings, d, this.onAttempt);
      if (result?.status === 'pending' && result.nextAttemptAt && !this.loop.isStopped) {
        this.scheduleRetry({ accountId: d.account_id, deliveryId: d.id, attemptsMade: d.attempts + 1, runAt: result.nextAttemptAt });
      }
    } catch (err) {
      // Typically the database went away: the claim expires and the delivery is attempted again.
      this.logger.error('webhook delivery crashed; it is retried when its claim expires', { delivery_id: d.id, error: (err as Error).message });
    }
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
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    const released = await this.loop.stop(drainMs);
    if (released.length) this.logger.warn('released webhook deliveries still in flight at shutdown', { delivery_ids: released.map((d) => d.id) });
  }
}
