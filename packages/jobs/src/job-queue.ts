import BeeQueue from 'bee-queue';
import type Joi from 'joi';
import { withTimeout, type Logger } from '@ams/core';
import { ScriptLoader } from './script-loader';

export interface QueueOptions<T> {
  /** redis:// URL; Bee-Queue builds its own (redis v3) clients from it. */
  redisUrl: string;
  /** config.redisKeyPrefix: every key lives under `<prefix>:bq:<queue>:`. */
  prefix: string;
  /** Workers consume (and raise delayed jobs); producers only enqueue. */
  isWorker: boolean;
  logger: Logger;
  /** Payload schema, checked on enqueue and again before the handler runs. */
  schema?: Joi.ObjectSchema<T>;
  /** How long a worker may go silent on a job before it counts as stalled and is re-queued. */
  stallIntervalMs?: number;
  /** The longest wait after a failed BRPOPLPUSH (Redis went away); MAX_REDIS_FAILURE_RETRY_MS unless set. */
  maxFailureRetryMs?: number;
}

export interface EnqueueOptions {
  /** Run no earlier than this (a delayed job); omitted or past: as soon as a worker is free. */
  runAt?: Date;
  /** Give up after this long (Redis down): the caller's reconciler finds the work later. */
  timeoutMs?: number;
}

/** Reconnect forever (redis v3 gives up after an hour by default), backing off to 5 s. */
const retryStrategy = ({ attempt }: { attempt: number }) => Math.min(attempt * 200, 5_000);

/** Redis's reply code (node_redis sets `code` from the reply's first word), not its message text. */
const isNoScript = (err: unknown) => (err as { code?: unknown } | null)?.code === 'NOSCRIPT';

/**
 * Bee-Queue doubles its wait after each failed BRPOPLPUSH without a ceiling: a long Redis outage
 * pushes it to days (and past setTimeout's 2^31 ms), so a worker stayed idle after Redis was back.
 */
const MAX_REDIS_FAILURE_RETRY_MS = 5_000;

function capFailureRetryDelay(queue: object, maxMs: number): void {
  let delay = 0;
  Object.defineProperty(queue, '_redisFailureRetryDelay', {
    configurable: true,
    get: () => delay,
    set: (ms: number) => {
      delay = Math.min(ms, maxMs);
    },
  });
}

/** Bee-Queue internals this wrapper relies on (not in its type definitions). */
interface BeeQueueInternals {
  client?: RedisV3Client;
  settings: { activateDelayedJobs: boolean };
  _activateDelayed(): void;
}
interface RedisV3Client {
  connected: boolean;
  on(event: 'ready', fn: () => void): void;
}

/**
 * The one Bee-Queue wrapper (every queue goes through it):
 * - deterministic job ids: enqueueing work that is already queued is a no-op;
 * - delayed jobs (`runAt`), raised by workers (activateDelayedJobs);
 * - finished jobs are removed: Redis holds only pending work, the database holds the history;
 * - stalled jobs (a worker died mid-job) are re-queued by a timer calling checkStalledJobs;
 * - a restarted Redis has lost Bee-Queue's Lua scripts (NOSCRIPT): they are reloaded when the
 *   connection comes back or a script call fails, and the delayed-job timer is restarted;
 * - enqueue never throws: it resolves false when Redis cannot take the job, because every job
 *   also has a row in PostgreSQL that a reconciler re-reads.
 */
export class JobQueue<T extends object> {
  readonly queue: BeeQueue<T>;
  private readonly scripts: ScriptLoader;
  private readonly stallIntervalMs: number;
  private stallTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    readonly name: string,
    private readonly options: QueueOptions<T>,
  ) {
    this.stallIntervalMs = options.stallIntervalMs ?? 10_000;
    this.queue = new BeeQueue<T>(name, {
      prefix: `${options.prefix}:bq`,
      redis: { url: options.redisUrl, retry_strategy: retryStrategy },
      isWorker: options.isWorker,
      getEvents: false,
      sendEvents: false,
      storeJobs: false,
      removeOnSuccess: true,
      removeOnFailure: true,
      activateDelayedJobs: options.isWorker,
      // Raise a delayed job close to its time (Bee-Queue batches by 1 s by default).
      delayedDebounce: 25,
      stallInterval: this.stallIntervalMs,
    });
    capFailureRetryDelay(this.queue, options.maxFailureRetryMs ?? MAX_REDIS_FAILURE_RETRY_MS);
    this.scripts = new ScriptLoader(() => this.internals().client, name, options.logger);
    this.queue.on('error', (err: Error) => {
      if (this.closed) return;
      options.logger.warn('queue error', { queue: name, error: err.message });
      if (isNoScript(err)) void this.recover();
    });
    this.queue
      .ready()
      .then(() => this.internals().client?.on('ready', () => void this.recover()))
      .catch((err: Error) => options.logger.warn('queue not ready', { queue: name, error: err.message }));
  }

  private internals(): BeeQueueInternals {
    return this.queue as unknown as BeeQueueInternals;
  }

  /** After a reconnect or NOSCRIPT: reload the scripts, then restart the delayed-job timer (it stops on a script error). */
  private async recover(): Promise<void> {
    if (this.closed) return;
    if (!(await this.scripts.reload())) return;
    const q = this.internals();
    if (q.settings.activateDelayedJobs && !this.closed) q._activateDelayed();
  }

  /** Whether a job enqueued now can reach Redis (open, and its connection up): known without a round trip. */
  canTakeJobs(): boolean {
    const client = this.internals().client;
    return !this.closed && (!client || client.connected);
  }

  /** Adds a job under `jobId` unless one with that id is already queued. Resolves false instead of throwing. */
  async enqueue(jobId: string, data: T, opts: EnqueueOptions = {}): Promise<boolean> {
    const payload = this.checked(data);
    if (!payload) return false;
    if (!this.canTakeJobs()) {
      this.options.logger.warn('queue unavailable; the reconciler will pick the work up', { queue: this.name, job_id: jobId });
      return false;
    }
    const save = () => {
      const job = this.queue.createJob(payload).setId(jobId);
      if (opts.runAt) job.delayUntil(opts.runAt);
      return withTimeout(job.save(), opts.timeoutMs ?? 2_000);
    };
    try {
      await save();
      return true;
    } catch (err) {
      if (isNoScript(err) && (await this.scripts.reload())) {
        try {
          await save();
          return true;
        } catch {
          /* reported below */
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

  /** Starts consuming `concurrency` jobs at a time. A payload that fails the schema fails its job. */
  process(concurrency: number, handler: (data: T, jobId: string) => Promise<void>): void {
    this.queue.process(concurrency, async (job) => {
      const payload = this.checked(job.data);
      if (!payload) throw new Error(`invalid ${this.name} job payload`);
      await handler(payload, job.id);
    });
    this.stallTimer = setInterval(() => {
      this.queue.checkStalledJobs().catch(() => undefined);
      // Also a safety net for the delayed-job timer, which a failed Redis call stops.
      this.internals()._activateDelayed();
    }, Math.max(1_000, Math.floor(this.stallIntervalMs / 2)));
    this.stallTimer.unref();
  }

  private checked(data: unknown): T | undefined {
    if (!this.options.schema) return data as T;
    const { value, error } = this.options.schema.validate(data);
    if (error) {
      this.options.logger.error('invalid job payload', { queue: this.name, error: error.message });
      return undefined;
    }
    return value;
  }

  /** Jobs waiting, running or delayed (0 when Redis cannot say). */
  async pendingCount(): Promise<number> {
    try {
      const counts = await withTimeout(this.queue.checkHealth(), 2_000);
      return counts.waiting + counts.active + counts.delayed;
    } catch {
      return 0;
    }
  }

  /** Stops taking jobs, waits up to `timeoutMs` for running ones, closes the connections. */
  async close(timeoutMs = 10_000): Promise<void> {
    this.closed = true;
    if (this.stallTimer) clearInterval(this.stallTimer);
    await this.queue.close(timeoutMs).catch(() => undefined);
  }
}
