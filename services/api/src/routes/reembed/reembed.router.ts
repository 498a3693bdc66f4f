import { Router } from 'express';
import { reembedStatus, startReembed } from '@ams/vectors';
import type { AppContext } from '../../context';
import { reembedDeps, store } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';
import { validate } from '../../validation/validate';
import { StartReembedBody, startReembedBody } from './reembed.schemas';

/** Re-embedding the store with another model (admin: it is service-wide maintenance). */
export function reembedRouter(ctx: AppContext): Router {
  const router = Router();
  router.use('/v1/admin/reembed', requireScope('admin'));
  router.post('/v1/admin/reembed', async (req, res) => {
    const body = validate<StartReembedBody>(startReembedBody, req.body ?? {});
    res.status(202).json(await startReembed(reembedDeps(ctx), req.auth!, body.model));
  });
  router.get('/v1/admin/reembed', async (_req, res) => {
    res.json(await reembedStatus(store(ctx)));
  });
  return router;
}
