import type { RequestHandler } from 'express';
import { type ApiMetrics, UNMATCHED_ROUTE } from '@ams/metrics';

/**
 * Counts and times every request by the pattern of the route that answered it (routers are
 * mounted at the root, so req.route.path is the whole pattern), read when the response finishes.
 */
export function requestMetrics(metrics: ApiMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : UNMATCHED_ROUTE;
      metrics.observeRequest(req.method, route, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
