import type { Knex } from '@ams/db';
import type { Logger } from '@ams/core';
import type { AttemptObservation } from './deliver-delivery';
import { DispatcherSettings, WebhookDispatcher } from './dispatcher';
import { OutboxReconciler } from './reconciler';

export interface InProcessDispatcher {
  /** Hands deliveries recorded in a committed transaction to the dispatcher; never throws. */
  notify(accountId: string, deliveryIds: string[]): void;
  /** Stops polling and waits up to `drainMs` for attempts in flight. */
  stop(drainMs?: number): Promise<void>;
}

/**
 * Embedded mode (no Redis): the dispatcher runs inside the API process, fed by direct
 * notifications and by polling the outbox every reconcile interval; retries wait on local timers.
 */
export function startInProcessDispatcher(
  db: Knex,
  logger: Logger,
  settings: DispatcherSettings,
  options: { onAttempt?: (o: AttemptObservation) => void } = {},
): InProcessDispatcher {
  const dispatcher = new WebhookDispatcher(db, logger, settings, options);
  const reconciler = new OutboxReconciler(dispatcher, settings.reconcileIntervalMs, logger);
  const started = reconciler.start();
  return {
    notify(accountId, deliveryIds) {
      for (const id of deliveryIds) void dispatcher.deliver(accountId, id);
    },
    async stop(drainMs) {
      await started;
      await reconciler.stop();
      await dispatcher.stop(drainMs);
    },
  };
}
