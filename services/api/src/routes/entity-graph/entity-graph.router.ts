import { Router } from 'express';
import { entityGraph, entityNeighbourhood } from '@ams/entities';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import { neighbourhoodQuery, NeighbourhoodQuery } from './entity-graph.schemas';

/** An entity's place in the knowledge graph (read scope): the clients' multi-hop walk and the console's one-hop view. */
export function entityGraphRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/v1/entities/:id/neighborhood', requireScope('read'), async (req, res) => {
    const id = pathId(req, 'Entity');
    res.json(await entityNeighbourhood(store(ctx), req.auth!, id, validate<NeighbourhoodQuery>(neighbourhoodQuery, req.query)));
  });
  router.get('/v1/entities/:id/graph', requireScope('read'), async (req, res) => {
    res.json(await entityGraph(store(ctx), req.auth!, pathId(req, 'Entity')));
  });
  return router;
}
