import { Router } from 'express';
import type { AppContext } from '../../context';
import { requireScope } from '../../middleware/require-scope';
import { ingestionStatus } from '@ams/vectors';

/** Embedding backlog and rate (read scope): what the console's operations page shows. */
export function ingestionRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/v1/ingestion', requireScope('read'), async (req, res) => {
    res.json(await ingestionStatus(ctx, req.auth!));
  });
  return router;
}
