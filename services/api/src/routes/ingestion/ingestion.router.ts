import { Router } from 'express';
import { ingestionStatus } from '@ams/vectors';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';

/** Embedding backlog and rate (read scope): what the console's operations page shows. */
export function ingestionRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/v1/ingestion', requireScope('read'), async (req, res) => {
    res.json(await ingestionStatus(store(ctx), req.auth!));
  });
  return router;
}
