import type { Express, Request, RequestHandler, Response } from 'express';
import type { Logger } from '@ams/core';

const childLog = Symbol('request log');
type WithLog = Request & { [childLog]?: Logger };

/**
 * Gives every request of `app` its logger (req.log: request_id on every line, account_id once the
 * caller is known), made on first use: a request that logs nothing (most of them, below info)
 * makes no child logger. Defined once on the app's request prototype, not per request.
 */
export function requestLogs(app: Express, logger: Logger): void {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: WithLog): Logger {
      return (this[childLog] ??= logger.child(this.auth ? { request_id: this.requestId, account_id: this.auth.accountId } : { request_id: this.requestId }));
    },
    set(this: WithLog, log: Logger) {
      this[childLog] = log;
    },
  });
}

/**
 * The caller is now known: the request's next log line names its account (a logger made before
 * without it is dropped).
 */
export function forgetRequestLogger(req: Request): void {
  (req as WithLog)[childLog] = undefined;
}

const unlogged = new WeakSet<Response>();

/** The answer is summed up elsewhere (refusals at the door, see backpressure()): no line of its own. */
export const withoutRequestLine = (res: Response): void => void unlogged.add(res);

/**
 * Writes one line per request when the response finishes: never the body, the query or headers.
 * Below the line's level (LOG_LEVEL=warn or error), nothing is built for it.
 */
export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      if (unlogged.has(res)) return;
      const level = res.statusCode >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      req.log.log(level, 'request', {
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        duration_ms: Math.round(durationMs * 10) / 10,
      });
    });
    next();
  };
}
