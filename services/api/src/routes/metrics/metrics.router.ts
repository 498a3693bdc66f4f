import { Router } from 'express';
import type { AppContext } from '../../context';
import { requireScope } from '../../middleware/require-scope';

/**
 * Prometheus text of this API process (ctx.metrics: requests, searches, the embedding queue, the
 * query cache). Admin scope: the API port is public; Prometheus sends the key with
 * `authorization: { credentials: <key> }`. METRICS_PORT serves the same without a key on a
 * listener of its own (server.ts).
 */
export function metricsRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/metrics', requireScope('admin'), async (_req, res) => {
    const { registry } = ctx.metrics!;
    res.type(registry.contentType).send(await registry.metrics());
  });
  return router;
}
