import { Router } from 'express';
import type { AppContext } from '../../context';
import { requireScope } from '../../middleware/require-scope';
import { buildContext } from '../../services/context.service';
import { validate } from '../../validation/validate';
import { buildContextBody, BuildContextBody } from './context.schemas';

export function contextRouter(ctx: AppContext): Router {
  const router = Router();
  router.post('/v2/context/build', requireScope('read'), async (req, res) => {
    res.json(await buildContext(ctx, req.auth!, validate<BuildContextBody>(buildContextBody, req.body)));
  });
  return router;
}
