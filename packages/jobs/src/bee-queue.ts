import BeeQueue from 'bee-queue';
import type { Logger } from '@ams/core';

// Bee-Queue's script cache: loaded once at start, so a restarted Redis (scripts gone) needs a reload.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const lua: { buildCache(client: unknown): Promise<unknown> } = require('bee-queue/lib/lua');

export interface QueueOptions {
  redisUrl: string;
  prefix: string;
  isWorker: boolean;
  logger: Logger;
}

const isNoScript = (err: unknown) => err instanceof Error && err.message.includes('NOSCRIPT');

/**
 * The one Bee-Queue wrapper. Jobs get deterministic ids (re-enqueueing the same work is a no-op
 * while it waits), finished jobs are removed (Redis only holds what is pending), stalled jobs are
 * checked on a timer, and the Lua scripts are reloaded whenever the connection comes back.
 */
export class JobQueue<T extends object> {
  readonly queue: BeeQueue<T>;
  private stallTimer?: NodeJS.Timeout;

  constructor(
    readonly name: string,
    private readonly options: QueueOptions,
  ) {
    this.queue = new BeeQueue<T>(name, {
      prefix: `${options.prefix}:bq`,
      redis: { url: options.redisUrl } as never,
      isWorker: options.isWorker,
      getEvents: false,
      sendEvents: false,
      storeJobs: false,
      removeOnSuccess: true,
      removeOnFailure: true,
      activateDelayedJobs: false,
      stallInterval: 10_000,
    });
    this.queue.on('error', (err: Error) => options.logger.warn('queue error', { queue: name, error: err.message }));
    const reloadScripts = () =>
      lua.buildCache(this.redisClient()).catch((err: Error) =>
        options.logger.warn('could not reload queue scripts', { queue: name, error: err.message }),
      );
    void this.queue.ready().then(() => this.redisClient().on('ready', reloadScripts));
  }

  /** Bee-Queue's own (redis v3) client, which it does not expose in its types. */
  private redisClient(): { on(event: string, fn: () => void): void } {
    return (this.queue as unknown as { client: { on(event: string, fn: () => void): void } }).client;
  }

  /** Resolves false (never throws) when Redis cannot take the job: the reconciler covers it. */
  async enqueue(jobId: string, data: T, timeoutMs = 2_000): Promise<boolean> {
    const attempt = () => this.queue.createJob(data).setId(jobId).save();
    const withTimeout = (p: Promise<unknown>) =>
      Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error('enqueue timed out')), timeoutMs).unref())]);
    try {
      await withTimeout(attempt());
      return true;
    } catch (err) {
      if (isNoScript(err)) {
        try {
          await lua.buildCache(this.redisClient());
          await withTimeout(attempt());
          return true;
        } catch {
          /* fall through */
        }
      }
      this.options.logger.warn('enqueue failed; the reconciler will pick the work up', {
        queue: this.name,
        job_id: jobId,
        error: (err as Error).message,
      });
      return false;
    }
  }

  /** Starts consuming; stalled jobs (a worker died mid-job) are re-queued on a timer. */
  process(concurrency: number, handler: (data: T) => Promise<void>): void {
    this.queue.process(concurrency, async (job) => handler(job.data));
    this.stallTimer = setInterval(() => {
      this.queue.checkStalledJobs().catch(() => undefined);
    }, 10_000);
    this.stallTimer.unref();
  }

  async waitingCount(): Promise<number> {
    try {
      const counts = await this.queue.checkHealth();
      return counts.waiting + counts.active + counts.delayed;
    } catch {
      return 0;
    }
  }

  /** Stops taking jobs, waits up to `timeoutMs` for active ones, closes the connections. */
  async close(timeoutMs = 10_000): Promise<void> {
    if (this.stallTimer) clearInterval(this.stallTimer);
    await this.queue.close(timeoutMs).catch(() => undefined);
  }
}
