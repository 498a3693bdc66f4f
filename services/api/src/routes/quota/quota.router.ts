import { Router } from 'express';
import { quota, RateWindow } from '@ams/accounts';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';

export function quotaRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/v1/quota', requireScope('read'), async (req, res) => {
    // Set by express-rate-limit, which runs before every route.
    const info = (req as unknown as { rateLimit?: RateWindow }).rateLimit;
    const window = { limit: info?.limit ?? ctx.config.rateLimit.perMinute, used: info?.used ?? 0, resetTime: info?.resetTime };
    res.json(await quota(store(ctx), req.auth!, window));
  });
  return router;
}
