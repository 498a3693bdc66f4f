import type { Request } from 'express';

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
