import { createRequire } from 'node:module';
import BeeQueue from 'bee-queue';
import type Joi from 'joi';
import { withTimeout, type Logger } from '@ams/core';

export interface QueueOptions<T> {
  /** redis:// URL; the queue's own (redis v3) command connection, which Bee-Queue duplicates for the rest. */
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

/** What of a node_redis v3 client the queue uses (its documented API). */
interface RedisV3Client {
  connected: boolean;
  on(event: 'ready', fn: () => void): void;
  on(event: 'error', fn: (err: Error) => void): void;
  quit(callback?: () => void): void;
  end(flush: boolean): void;
}

/**
 * The node_redis v3 that Bee-Queue itself is written against (the service's own `redis` is v4): the
 * queue's command connection is made here and handed to Bee-Queue (its `redis` setting), so the
 * queue knows when it reconnects and whether it is connected.
 */
const redisV3 = createRequire(require.resolve('bee-queue'))('redis') as {
  createClient(url: string, options: { retry_strategy: typeof retryStrategy }): RedisV3Client;
};

/**
 * The one Bee-Queue wrapper (every queue goes through it):
 * - deterministic job ids: enqueueing work that is already queued is a no-op;
 * - delayed jobs (`runAt`), raised by workers (activateDelayedJobs);
 * - finished jobs are removed: Redis holds only pending work, the database holds the history;
 * - stalled jobs (a worker died mid-job) are re-queued by a timer calling checkStalledJobs;
 * - after its connection comes back, or a script call fails with NOSCRIPT (a restarted Redis has
 *   lost Bee-Queue's Lua scripts), the Bee-Queue instance is replaced by a fresh one: its start
 *   loads the scripts, a worker's fresh instance takes over the handler (its delayed-job timer, which
 *   a failed script call stops, running again, and its wait after a dropped BRPOPLPUSH, which
 *   Bee-Queue doubles without a ceiling, back to none), and the old one finishes its running jobs
 *   and closes;
 * - enqueue never throws: it resolves false when Redis cannot take the job, because every job
 *   also has a row in PostgreSQL that a reconciler re-reads.
 */
export class JobQueue<T extends object> {
  private current: BeeQueue<T>;
  private readonly client: RedisV3Client;
  private readonly stallIntervalMs: number;
  private handler?: { concurrency: number; run: (data: T, jobId: string) => Promise<void> };
  private renewing?: Promise<void>;
  /** Replaced instances still finishing their running jobs. */
  private readonly retiring = new Set<Promise<void>>();
  private stallTimer?: NodeJS.Timeout;
  private closed = false;
  /** Whether the command connection has been up once: until then a job waits for it (up to its timeout). */
  private connectedBefore = false;

  constructor(
    readonly name: string,
    private readonly options: QueueOptions<T>,
  ) {
    this.stallIntervalMs = options.stallIntervalMs ?? 10_000;
    this.client = redisV3.createClient(options.redisUrl, { retry_strategy: retryStrategy });
    // Reported through the Bee-Queue instance's 'error' (it listens on this connection too).
    this.client.on('error', () => undefined);
    this.client.on('ready', () => {
      if (this.connectedBefore) void this.renew();
      this.connectedBefore = true;
    });
    this.current = this.open();
  }

  /** The Bee-Queue instance in use now (replaced after a reconnect or NOSCRIPT). */
  get queue(): BeeQueue<T> {
    return this.current;
  }

  private open(): BeeQueue<T> {
    const queue = new BeeQueue<T>(this.name, {
      prefix: `${this.options.prefix}:bq`,
      redis: this.client as never,
      isWorker: this.options.isWorker,
      getEvents: false,
      sendEvents: false,
      storeJobs: false,
      removeOnSuccess: true,
      removeOnFailure: true,
      activateDelayedJobs: this.options.isWorker,
      // Raise a delayed job close to its time (Bee-Queue batches by 1 s by default).
      delayedDebounce: 25,
      stallInterval: this.stallIntervalMs,
    });
    queue.on('error', (err: Error) => {
      if (this.closed || queue !== this.current) return;
      this.options.logger.warn('queue error', { queue: this.name, error: err.message });
      if (isNoScript(err)) void this.renew();
    });
    queue.ready().catch((err: Error) => this.options.logger.warn('queue not ready', { queue: this.name, error: err.message }));
    this.runHandler(queue);
    return queue;
  }

  private runHandler(queue: BeeQueue<T>): void {
    const handler = this.handler;
    if (!handler) return;
    queue.process(handler.concurrency, async (job) => {
      const payload = this.checked(job.data);
      if (!payload) throw new Error(`invalid ${this.name} job payload`);
      await handler.run(payload, job.id);
    });
  }

  /** A fresh Bee-Queue instance in place of the current one; concurrent calls share one. */
  private renew(): Promise<void> {
    this.renewing ??= (async () => {
      if (this.closed) return;
      const old = this.current;
      this.current = this.open();
      const retired = old
        .close(10_000)
        .catch(() => undefined)
        .then(() => void this.retiring.delete(retired));
      this.retiring.add(retired);
      await this.current.ready().catch(() => undefined);
    })().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  /** Whether a job enqueued now can reach Redis (open, and its connection up): known without a round trip. */
  canTakeJobs(): boolean {
    return !this.closed && (this.client.connected || !this.connectedBefore);
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
      const job = this.current.createJob(payload).setId(jobId);
      if (opts.runAt) job.delayUntil(opts.runAt);
      return withTimeout(job.save(), opts.timeoutMs ?? 2_000);
    };
    try {
      await save();
      return true;
    } catch (err) {
      if (isNoScript(err)) {
        try {
          await this.renew();
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
    this.handler = { concurrency, run: handler };
    this.runHandler(this.current);
    this.stallTimer = setInterval(() => {
      this.current.checkStalledJobs().catch((err: unknown) => {
        if (isNoScript(err)) void this.renew();
      });
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
      const counts = await withTimeout(this.current.checkHealth(), 2_000);
      return counts.waiting + counts.active + counts.delayed;
    } catch {
      return 0;
    }
  }

  /** Stops taking jobs, waits up to `timeoutMs` for running ones, closes the connections. */
  async close(timeoutMs = 10_000): Promise<void> {
    this.closed = true;
    if (this.stallTimer) clearInterval(this.stallTimer);
    await this.renewing;
    await Promise.all([this.current.close(timeoutMs).catch(() => undefined), ...this.retiring]);
    // QUIT waits for a connection; one that is down is ended at once.
    if (this.client.connected) await withTimeout(new Promise<void>((resolve) => this.client.quit(() => resolve())), 1_000).catch(() => undefined);
    this.client.end(true);
  }
}
