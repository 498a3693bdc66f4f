import { periodic, type Logger, type PeriodicTask } from '@ams/core';
import type { WebhookDispatcher } from './dispatcher';

/**
 * Compares the outbox with what the dispatcher was told (n8n's recoverFromQueue, in spirit): every
 * interval it sweeps PostgreSQL for deliveries that are due, pending ones whose job was lost (a
 * flushed or restarted Redis, an API that could not enqueue) and 'delivering' ones whose claim
 * expired (a dispatcher killed mid-delivery), and hands them to the dispatcher. It claims them
 * directly instead of re-enqueueing them: the outcome is the same, and deliveries keep flowing
 * while Redis is down. In embedded mode this sweep is also the polling loop.
 */
export class OutboxReconciler {
  private task?: PeriodicTask;

  constructor(
    private readonly dispatcher: WebhookDispatcher,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  /** Sweeps once (a restarted dispatcher resumes at once), then on the interval; resolves after the first sweep. */
  async start(): Promise<void> {
    this.task ??= periodic({ name: 'webhook outbox sweep', intervalMs: this.intervalMs, logger: this.logger }, () => this.tick());
    await this.task.runNow();
  }

  private async tick(): Promise<void> {
    const { claimed, reclaimed } = await this.dispatcher.sweep();
    if (claimed > 0) this.logger.debug('webhook outbox sweep', { claimed, reclaimed });
  }

  /** No more sweeps; resolves when the one under way has ended. */
  async stop(): Promise<void> {
    await this.task?.stop();
    this.task = undefined;
  }
}
