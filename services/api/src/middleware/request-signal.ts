import type { Request, Response } from 'express';
import { whileReading } from '@ams/db';

/** What a refused or cut-short request is told to wait before trying again. */
export const RETRY_AFTER_SECONDS = 1;

const signals = new WeakMap<Request, AbortSignal>();

/**
 * Aborted (with a 503 ApiError as its reason) when the client has gone away before its response was
 * sent, or at the request's deadline (backpressure.ts). Reads stop (runAsRead: the running statement
 * is cancelled, later steps are skipped); writes run to the end (stopping half-way is not safe).
 */
export function requestSignal(req: Request): AbortSignal {
  return signals.get(req) ?? new AbortController().signal;
}

export function bindSignal(req: Request, signal: AbortSignal): void {
  signals.set(req, signal);
}

/**
 * Runs `run` (a search) under a deadline of its own, `ms` from now, below the request's: past it the
 * statement running is cancelled and the steps left skipped, as at the request's deadline, and the
 * answer is 503 with the message of `late()` (made only then) and Retry-After. What `run` reads (through requestResources)
 * stops with this deadline. `ms` 0: the request's deadline alone.
 */
export async function withinOwnDeadline<T>(req: Request, res: Response, ms: number, late: () => Error, run: () => Promise<T>): Promise<T> {
  const parent = signals.get(req);
  if (ms <= 0 || !parent) return run();
  const controller = new AbortController();
  const fromParent = () => controller.abort(parent.reason);
  if (parent.aborted) fromParent();
  else parent.addEventListener('abort', fromParent, { once: true });
  let lateError: Error | undefined;
  const timer = setTimeout(() => controller.abort((lateError = late())), ms);
  signals.set(req, controller.signal);
  try {
    return await whileReading(controller.signal, run);
  } catch (err) {
    if (lateError !== undefined && err === lateError && !res.headersSent) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    throw err;
  } finally {
    clearTimeout(timer);
    parent.removeEventListener('abort', fromParent);
    signals.set(req, parent);
  }
}
