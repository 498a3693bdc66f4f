import { Router } from 'express';
import {
  adoptPattern,
  createPattern,
  deletePattern,
  getPattern,
  listPatterns,
  patchPattern,
  searchPatterns,
  unadoptPattern,
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
  adoptBody,
  createPatternBody,
  CreatePatternBody,
  listPatternsQuery,
  ListPatternsQuery,
  patchPatternBody,
  PatchPatternBody,
  searchPatternsBody,
  SearchPatternsBody,
  unadoptQuery,
} from './patterns.schemas';

export function patternsRouter(ctx: AppContext): Router {
  const router = Router();

  router.post('/v1/patterns', requireScope('write'), async (req, res) => {
    res.status(201).json(await createPattern(store(ctx), req.auth!, validate<CreatePatternBody>(createPatternBody, req.body)));
  });

  router.post('/v1/patterns/search', requireScope('read'), async (req, res) => {
    res.json(await onReader(ctx, req, () => searchPatterns(requestResources(ctx, req), req.auth!, validate<SearchPatternsBody>(searchPatternsBody, req.body))));
  });

  router.get('/v1/patterns', requireScope('read'), async (req, res) => {
    const page = await onReader(ctx, req, () => listPatterns(requestResources(ctx, req), req.auth!, validate<ListPatternsQuery>(listPatternsQuery, req.query)));
    res.json(listResponse(page, page.data));
  });

  router.get('/v1/patterns/:id', requireScope('read'), async (req, res) => {
    res.json(await onReader(ctx, req, () => getPattern(requestResources(ctx, req), req.auth!, pathId(req, 'Pattern'))));
  });

  router.patch('/v1/patterns/:id', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Pattern');
    res.json(await patchPattern(store(ctx), req.auth!, id, validate<PatchPatternBody>(patchPatternBody, req.body)));
  });

  router.delete('/v1/patterns/:id', requireScope('delete'), async (req, res) => {
    await deletePattern(store(ctx), req.auth!, pathId(req, 'Pattern'));
    res.status(204).end();
  });

  router.post('/v1/patterns/:id/adopt', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Pattern');
    res.json(await adoptPattern(store(ctx), req.auth!, id, validate<{ project: string }>(adoptBody, req.body).project));
  });

  // Un-adopting changes data: write scope, like adopting (docs/api.md, "Authentication and scopes").
  router.delete('/v1/patterns/:id/adopt', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Pattern');
    await unadoptPattern(store(ctx), req.auth!, id, validate<{ project: string }>(unadoptQuery, req.query).project);
    res.status(204).end();
  });
  return router;
}
