import type { RequestHandler } from 'express';
import type { Logger } from '@ams/core';

/** One line per request, written when the response finishes. Never the body, the query or headers. */
export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : 'info';
      logger.log(level, 'request', {
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        duration_ms: Math.round(durationMs * 10) / 10,
        request_id: req.requestId,
        account_id: req.auth?.accountId,
      });
    });
    next();
  };
}
