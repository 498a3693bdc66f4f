import { Router } from 'express';
import {
  checkDecisions,
  createDecision,
  deleteDecision,
  getDecision,
  listDecisions,
  patchDecision,
  supersedeDecision,
} from '@ams/knowledge';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { requestResources } from '../../memory-deps';
import { onReader } from '../../middleware/route-reads';
import { requireScope } from '../../middleware/require-scope';
import { listResponse } from '../../validation/common.schemas';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import {
  checkDecisionsBody,
  CheckDecisionsBody,
  createDecisionBody,
  CreateDecisionBody,
  listDecisionsQuery,
  ListDecisionsQuery,
  patchDecisionBody,
  PatchDecisionBody,
  supersedeBody,
  SupersedeBody,
} from './decisions.schemas';

export function decisionsRouter(ctx: AppContext): Router {
  const router = Router();

  router.post('/v1/decisions', requireScope('write'), async (req, res) => {
    res.status(201).json(await createDecision(store(ctx), req.auth!, validate<CreateDecisionBody>(createDecisionBody, req.body)));
  });

  router.post('/v1/decisions/check', requireScope('read'), async (req, res) => {
    res.json(await onReader(ctx, req, () => checkDecisions(requestResources(ctx, req), req.auth!, validate<CheckDecisionsBody>(checkDecisionsBody, req.body))));
  });

  router.get('/v1/decisions', requireScope('read'), async (req, res) => {
    const page = await onReader(ctx, req, () => listDecisions(requestResources(ctx, req), req.auth!, validate<ListDecisionsQuery>(listDecisionsQuery, req.query)));
    res.json(listResponse(page, page.data));
  });

  router.get('/v1/decisions/:id', requireScope('read'), async (req, res) => {
    res.json(await onReader(ctx, req, () => getDecision(requestResources(ctx, req), req.auth!, pathId(req, 'Decision'))));
  });

  router.patch('/v1/decisions/:id', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Decision');
    res.json(await patchDecision(store(ctx), req.auth!, id, validate<PatchDecisionBody>(patchDecisionBody, req.body)));
  });

  router.delete('/v1/decisions/:id', requireScope('delete'), async (req, res) => {
    await deleteDecision(store(ctx), req.auth!, pathId(req, 'Decision'));
    res.status(204).end();
  });

  router.post('/v1/decisions/:id/supersede', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Decision');
    res.status(201).json(await supersedeDecision(store(ctx), req.auth!, id, validate<SupersedeBody>(supersedeBody, req.body)));
  });
  return router;
}
