import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError, type Logger } from '@ams/core';
import { whileReading } from '@ams/db';
import type { AppContext } from '../context';
import { AdmissionQueue, REFUSALS, type Release } from './admission-queue';
import { admissionMetrics } from '@ams/metrics';
import { sendError } from './error-handler';
import { withoutRequestLine } from './request-logger';
import { bindSignal, requestSignal, RETRY_AFTER_SECONDS } from './request-signal';

export { requestSignal };
/** Never shed: load balancers and operators must still see the process. */
const EXEMPT = new Set(['/v1/health']);

interface TarnPool {
  on(event: 'acquireRequest', fn: (id: number) => void): void;
  on(event: 'acquireSuccess' | 'acquireFail', fn: (id: number) => void): void;
}

const POOL_INTERVAL_MS = 500;
const SUMMARY_MS = 1000;

const OVERLOADS = { database_saturated: 'the database is saturated', event_loop_saturated: 'the server is saturated' } as const;
/** A refusal's message → its metric label. */
const REFUSAL_LABELS = new Map<string, string>(Object.entries({ ...REFUSALS, ...OVERLOADS }).map(([label, message]) => [message, label]));

/** What this process is carrying right now; the bounds of backpressure() are checked against it. */
export class LoadGauge {
  private delayMs = 0;
  private readonly histogram = monitorEventLoopDelay({ resolution: 10 });
  private readonly timer: NodeJS.Timeout;
  private readonly acquireStarted = new Map<number, number>();
  private intervalMinWait = Infinity;
  private standingWaitMs = 0;
  /** The admission queue whose slots and waiters this gauge reports (set by backpressure()). */
  admission?: AdmissionQueue;

  constructor(private readonly ctx: AppContext) {
    this.histogram.enable();
    const pool = (ctx.db.knex.client as { pool?: TarnPool }).pool;
    pool?.on('acquireRequest', (id) => this.acquireStarted.set(id, performance.now()));
    const done = (id: number) => {
      const started = this.acquireStarted.get(id);
      this.acquireStarted.delete(id);
      if (started !== undefined) this.intervalMinWait = Math.min(this.intervalMinWait, performance.now() - started);
    };
    pool?.on('acquireSuccess', done);
    pool?.on('acquireFail', done);
    let ticks = 0;
    this.timer = setInterval(() => {
      // CoDel's signal: a queue is standing when even the shortest wait of the interval was long,
      // or a query is still waiting that has waited that long.
      let oldest = 0;
      const now = performance.now();
      for (const started of this.acquireStarted.values()) oldest = Math.max(oldest, now - started);
      this.standingWaitMs = Math.max(Number.isFinite(this.intervalMinWait) ? this.intervalMinWait : 0, this.acquireStarted.size > 0 ? Math.min(oldest, this.intervalMinWait) : 0);
      this.intervalMinWait = Infinity;
      // The mean event-loop delay over the last full second: sustained saturation, not one long tick.
      if (++ticks % 2 === 0) {
        this.delayMs = this.histogram.count > 0 ? this.histogram.mean / 1e6 : 0;
        this.histogram.reset();
      }
    }, POOL_INTERVAL_MS).unref();
  }

  eventLoopDelayMs(): number {
    return this.delayMs;
  }

  /** How long queries have been queueing for a database connection, as a standing queue (0: none). */
  poolWaitMs(): number {
    return this.standingWaitMs;
  }

  /** Requests in progress. */
  get inFlight(): number {
    return this.admission?.inFlight ?? 0;
  }

  /** Requests waiting in the admission queue. */
  queued(): number {
    return this.admission?.length ?? 0;
  }

  /** The in-flight bound. */
  slots(): number {
    return this.admission?.slots ?? this.ctx.config.backpressure.maxInFlight;
  }

  /** Whether the in-flight bound is reached (a new request waits in the admission queue). */
  full(): boolean {
    return this.admission?.full() ?? false;
  }

  /** Why the process is saturated now (its database or its event loop), or null. */
  overload(): string | null {
    const b = this.ctx.config.backpressure;
    if (b.maxPoolWaitMs > 0 && this.standingWaitMs >= b.maxPoolWaitMs) return OVERLOADS.database_saturated;
    if (b.maxEventLoopDelayMs > 0 && this.delayMs >= b.maxEventLoopDelayMs) return OVERLOADS.event_loop_saturated;
    return null;
  }

  close(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }
}

/** 503 with Retry-After, unless an answer has already gone (or its client). */
function unavailable(req: Request, res: Response, err: ApiError): void {
  if (res.headersSent || res.destroyed) return;
  res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
  sendError(req, res, err);
}

/**
 * Refusals go to the log summed, one warning a second at most with their counts by reason, not a
 * line each: under a flood those lines would cost the cores the refusals are there to save.
 */
function refusalSummary(logger: Logger): (label: string) => void {
  let counts: Record<string, number> = {};
  let timer: NodeJS.Timeout | undefined;
  return (label) => {
    counts[label] = (counts[label] ?? 0) + 1;
    timer ??= setTimeout(() => {
      logger.warn('requests refused (503, overload)', { refused: counts, window_ms: SUMMARY_MS });
      counts = {};
      timer = undefined;
    }, SUMMARY_MS).unref();
  };
}

/** A caller's share of the slots: its account's weight; before authentication, its address's. */
export type FairShareWeight = (accountId: string) => number;

/**
 * Load shedding at the door, before the body is read, fair across accounts: beyond the bound on
 * requests in progress a request waits in its account's queue of the admission queue, which takes
 * the accounts in turn and refuses at once (503 service_unavailable with Retry-After) a newcomer
 * expected to wait past the latency budget; a saturated database pool or event loop refuses the
 * accounts already holding their share of the slots (see AdmissionQueue). Every accepted request
 * has a deadline: past it the client gets 503 and the request's signal is aborted.
 */
export function backpressure(ctx: AppContext, gauge = new LoadGauge(ctx), weightOf: FairShareWeight = () => 1): RequestHandler {
  const { requestTimeoutMs: timeoutMs, maxInFlight, maxInFlightPerAccount, maxQueued, maxQueueDelayMs } = ctx.config.backpressure;
  const queue = new AdmissionQueue({ slots: maxInFlight || Infinity, slotsPerFlow: maxInFlightPerAccount, capacity: maxQueued, maxDelayMs: maxQueueDelayMs });
  gauge.admission = queue;
  const counted = admissionMetrics(ctx.metrics.registry, { inFlight: () => queue.inFlight, queued: () => queue.length });
  const summed = refusalSummary(ctx.logger);
  // One error per reason (a closed set), made once: a flood's refusals cost no stack trace each.
  const errors = new Map<string, ApiError>();
  const refuse = (req: Request, res: Response, reason: string) => {
    const label = REFUSAL_LABELS.get(reason) ?? 'waited_past_budget';
    counted(label);
    summed(label);
    withoutRequestLine(res);
    let error = errors.get(reason);
    if (!error) errors.set(reason, (error = new ApiError('service_unavailable', `Service overloaded (${reason}); retry in ${RETRY_AFTER_SECONDS} second.`)));
    unavailable(req, res, error);
  };
  const start = (req: Request, res: Response, next: NextFunction, release: Release) => {
    const startedAt = performance.now();
    const controller = new AbortController();
    bindSignal(req, controller.signal);
    const deadline =
      timeoutMs > 0
        ? setTimeout(() => {
            const late = new ApiError('service_unavailable', `Request did not complete within ${timeoutMs} ms; retry later.`);
            controller.abort(late);
            unavailable(req, res, late);
          }, timeoutMs)
        : undefined;
    res.once('close', () => {
      clearTimeout(deadline);
      if (res.writableFinished) return release(performance.now() - startedAt);
      release();
      controller.abort(new ApiError('service_unavailable', 'The client went away before the response.'));
    });
    next();
  };
  return (req, res, next) => {
    if (EXEMPT.has(req.path)) return next();
    const flow = req.auth ? { key: req.auth.accountId, weight: weightOf(req.auth.accountId) } : { key: `address ${req.ip}`, weight: 1 };
    // Set while it waits: its client leaving drops it from the queue.
    const waiting: { left?: () => void } = {};
    const stopWaiting = () => waiting.left && res.off('close', waiting.left);
    const entered = queue.enter(
      flow,
      (release) => {
        stopWaiting();
        start(req, res, next, release);
      },
      (reason) => {
        stopWaiting();
        refuse(req, res, reason ?? `no slot within ${maxQueueDelayMs} ms`);
      },
      gauge.overload(),
    );
    if (entered === 'started') return;
    if ('refused' in entered) return refuse(req, res, entered.refused);
    waiting.left = entered.leave;
    res.once('close', entered.leave);
  };
}

const reads = new WeakSet<Request>();

/** Reads may be abandoned when nobody waits for them any more; writes never are. */
export const isReadRequest = (req: Request): boolean => reads.has(req);

/**
 * Runs the rest of a read (see the scope guard: a GET, or a route whose declared scope is `read`):
 * one whose client left while it waited (for its key's lookup, the rate limiter, the pool) is
 * dropped, as there is nobody to answer; any other runs with its queries bound to its signal
 * (whileReading), so whatever route it is, the statement running when its client goes away or its
 * deadline passes is cancelled and the rest skipped.
 */
export function runAsRead(req: Request, next: NextFunction): void {
  reads.add(req);
  const signal = requestSignal(req);
  if (signal.aborted) return;
  // Its database (a replica, or the primary): middleware/route-reads.ts, when replicas are configured.
  const route = (req.app.locals as { routeRead?: (req: Request) => Promise<void> }).routeRead;
  if (!route) return whileReading(signal, next);
  route(req).then(() => {
    if (!signal.aborted) whileReading(signal, next);
  }, next);
}
