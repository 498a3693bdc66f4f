import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { ApiError, isApiError, Logger } from '@ams/core';
import { isDatabaseUnavailable } from '@ams/db';
import { sendJson } from '../lib/json-response';
import { requestSignal } from './request-signal';

/** body-parser reports its failures with a stable `type`; map those, never the message text. */
function fromBodyParser(err: { type?: string; limit?: number }): ApiError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return ApiError.badRequest('Malformed JSON in request body');
    case 'entity.too.large':
      return new ApiError('payload_too_large', `Request body exceeds the limit of ${err.limit} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return ApiError.badRequest('Unsupported request body encoding');
    case 'request.aborted':
      return ApiError.badRequest('Request aborted');
    default:
      return undefined;
  }
}

/** Errors Express raises itself with a 4xx `status` (a %-escape in a route parameter that does not decode). */
function fromHttpError(err: { status?: unknown; expose?: unknown }): ApiError | undefined {
  if (err instanceof URIError) return ApiError.badRequest('Malformed percent-encoding in the URL');
  if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) return ApiError.badRequest('Bad request');
  return undefined;
}

/** The database, or the Citus worker holding the account, is unreachable: 503, retried later (docs/scaling.md). */
function fromDatabase(err: unknown): ApiError | undefined {
  return isDatabaseUnavailable(err) ? new ApiError('service_unavailable', 'The database is unavailable; retry later.') : undefined;
}

/**
 * A write the memories trigger refused for the account's storage limits (SQLSTATE AQ001, migration
 * 080): its message names the limit and the usage. Citus re-raises a worker's error with its code.
 */
function fromQuota(err: unknown): ApiError | undefined {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e?.code !== 'AQ001' || typeof e.message !== 'string') return undefined;
  return new ApiError('quota_exceeded', e.message.replace(/^.*?(?=(Memory|Storage) quota exceeded)/s, ''));
}

export const notFoundRoute: RequestHandler = (req, _res, next) => {
  next(new ApiError('not_found', `No route for ${req.method} ${req.path}`));
};

/** The one place errors become the spec's envelope. Unknown errors are logged, never exposed. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    // A read abandoned (its client gone, its deadline past) fails with whatever stopped it (a
    // cancelled or refused statement): it is the abandonment, already answered or unanswerable.
    const abandoned = requestSignal(req);
    if (abandoned.aborted && isApiError(abandoned.reason) && !isApiError(err)) err = abandoned.reason;
    const unavailable = isApiError(err) ? undefined : fromDatabase(err);
    const apiError = isApiError(err) ? err : (fromBodyParser(err) ?? fromHttpError(err) ?? fromQuota(err) ?? unavailable);
    if (unavailable) (req.log ?? logger.child({ request_id: req.requestId })).warn('database unavailable', { error: (err as Error).message });
    if (!apiError) {
      (req.log ?? logger.child({ request_id: req.requestId })).error('unhandled error', {
        error: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    }
    // Already answered (the request's deadline passed while the handler ran): nothing more to say.
    if (res.headersSent) return;
    if (unavailable) res.set('Retry-After', '5');
    sendError(req, res, apiError ?? new ApiError('internal_error', 'Internal server error'));
  };
}

/** The spec's envelope for `e`; also for answers sent outside the middleware chain (backpressure). */
export function sendError(req: Request, res: Response, e: ApiError): void {
  sendJson(res, e.status, {
    type: e.type,
    message: e.message,
    code: e.status,
    request_id: req.requestId,
    ...(e.type === 'validation_error' ? { details: e.details ?? [] } : {}),
    // Copies of message under the names existing clients read (docs/clients.md, "Additive response members").
    detail: e.message,
    error: e.message,
  });
}
