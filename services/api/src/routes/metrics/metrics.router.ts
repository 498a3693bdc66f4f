import { Router } from 'express';
import { assertOperator } from '@ams/accounts';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';

/**
 * Prometheus text of this API process (ctx.metrics: requests, searches, the embedding queue, the
 * query cache). It counts every tenant's requests, so on the public port it takes an admin key of
 * the operator's account (as re-embedding does); Prometheus sends it with
 * `authorization: { credentials: <key> }`. METRICS_PORT serves the same without a key on a
 * listener of its own (server.ts).
 */
export function metricsRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/metrics', requireScope('admin'), async (req, res) => {
    await assertOperator(store(ctx), req.auth!, "Metrics count every account's requests: only the operator's account (the first one, whose key the first start printed) may read them");
    const { registry } = ctx.metrics!;
    res.type(registry.contentType).send(await registry.metrics());
  });
  return router;
}
