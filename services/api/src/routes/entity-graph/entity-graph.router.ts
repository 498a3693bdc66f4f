import { Router } from 'express';
import type { AppContext } from '../../context';
import { requireScope } from '../../middleware/require-scope';
import { entityNeighbourhood } from '../../services/entity-graph.service';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import { neighbourhoodQuery, NeighbourhoodQuery } from './entity-graph.schemas';

export function entityGraphRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/v1/entities/:id/neighborhood', requireScope('read'), async (req, res) => {
    const id = pathId(req, 'Entity');
    res.json(await entityNeighbourhood(ctx, req.auth!, id, validate<NeighbourhoodQuery>(neighbourhoodQuery, req.query)));
  });
  return router;
}
