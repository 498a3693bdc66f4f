import { Router } from 'express';
import type { AppContext } from '../../context';
import { requireScope } from '../../middleware/require-scope';
import { entityGraph } from '../../services/entity-graph.service';
import { pathId } from '../../validation/path-params';

/** An entity with its linked memories and co-mentioned entities (read scope). */
export function entityGraphRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/v1/entities/:id/graph', requireScope('read'), async (req, res) => {
    res.json(await entityGraph(ctx, req.auth!, pathId(req, 'Entity')));
  });
  return router;
}
