import type { RequestHandler } from 'express';
import type { Logger } from '@ams/core';

/**
 * Gives the request its logger (req.log: request_id on every line, account_id added once the
 * caller is known) and writes one line per request when the response finishes. Never the body,
 * the query or headers.
 */
export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    req.log = logger.child({ request_id: req.requestId });
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : 'info';
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
