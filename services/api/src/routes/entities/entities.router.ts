import { Router } from 'express';
import { createEntity, deleteEntity, getEntity, linkEntity, listEntities, patchEntity } from '@ams/entities';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';
import { listResponse } from '../../validation/common.schemas';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import {
  createEntityBody,
  CreateEntityBody,
  linkBody,
  LinkBody,
  listEntitiesQuery,
  ListEntitiesQuery,
  patchEntityBody,
  PatchEntityBody,
} from './entities.schemas';

export function entitiesRouter(ctx: AppContext): Router {
  const router = Router();

  router.post('/v1/entities', requireScope('write'), async (req, res) => {
    res.status(201).json(await createEntity(store(ctx), req.auth!, validate<CreateEntityBody>(createEntityBody, req.body)));
  });

  // Before /:id so "link" is never read as an id.
  router.post('/v1/entities/link', requireScope('write'), async (req, res) => {
    res.status(201).json(await linkEntity(store(ctx), req.auth!, validate<LinkBody>(linkBody, req.body)));
  });

  router.get('/v1/entities', requireScope('read'), async (req, res) => {
    const page = await listEntities(store(ctx), req.auth!, validate<ListEntitiesQuery>(listEntitiesQuery, req.query));
    res.json(listResponse(page, page.data, true));
  });

  router.get('/v1/entities/:id', requireScope('read'), async (req, res) => {
    res.json(await getEntity(store(ctx), req.auth!, pathId(req, 'Entity')));
  });

  router.patch('/v1/entities/:id', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Entity');
    res.json(await patchEntity(store(ctx), req.auth!, id, validate<PatchEntityBody>(patchEntityBody, req.body)));
  });

  router.delete('/v1/entities/:id', requireScope('delete'), async (req, res) => {
    await deleteEntity(store(ctx), req.auth!, pathId(req, 'Entity'));
    res.status(204).end();
  });
  return router;
}
