import { Router } from 'express';
import type { AppContext } from '../../context';
import { checkHealth } from '../../lib/health';

/** No authentication. 503 only when the database is down: without Redis the API still serves. */
export function healthRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/v1/health', async (_req, res) => {
    const health = await checkHealth(ctx);
    res.status(health.database === 'connected' ? 200 : 503).json(health);
  });
  return router;
}
