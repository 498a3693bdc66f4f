import { Router } from 'express';
import { register } from 'prom-client';
import type { AppContext } from '../../context';
import { requireScope } from '../../middleware/require-scope';

/**
 * Prometheus text of this API process (prom-client's global registry: the query embedding
 * cache's hits and misses). Admin scope: the API port is public, unlike a worker's metrics port;
 * Prometheus sends the key with `authorization: { credentials: <key> }`.
 */
export function metricsRouter(_ctx: AppContext): Router {
  const router = Router();
  router.get('/metrics', requireScope('admin'), async (_req, res) => {
    res.type(register.contentType).send(await register.metrics());
  });
  return router;
}
