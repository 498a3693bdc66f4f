import { Router } from 'express';
import type { AppContext } from '../../context';
import { requireScope } from '../../middleware/require-scope';
import { createBatch } from '../../services/memories/batch.service';
import {
  createMemory,
  deleteMemory,
  getMemory,
  listMemories,
  patchMemory,
  restoreMemory,
} from '../../services/memories/memories.service';
import { searchMemories } from '../../services/memories/search.service';
import { listResponse } from '../../validation/common.schemas';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import {
  batchBody,
  BatchBody,
  createMemoryBody,
  CreateMemoryBody,
  listMemoriesQuery,
  ListMemoriesQuery,
  patchMemoryBody,
  PatchMemoryBody,
  SEARCH_QUERY_PARAMS,
  searchBody,
  SearchBody,
} from './memories.schemas';

export function memoriesRouter(ctx: AppContext): Router {
  const router = Router();

  router.post('/v1/memories', requireScope('write'), async (req, res) => {
    const { status, memory } = await createMemory(ctx, req.auth!, validate<CreateMemoryBody>(createMemoryBody, req.body));
    res.status(status).json(memory);
  });

  router.post('/v1/memories/batch', requireScope('write'), async (req, res) => {
    res.json(await createBatch(ctx, req.auth!, validate<BatchBody>(batchBody, req.body)));
  });

  router.post('/v1/memories/search', requireScope('read'), async (req, res) => {
    // scope and session_id may come in the query string (client-compat §1.2); the body wins.
    const fromQuery = Object.fromEntries(SEARCH_QUERY_PARAMS.flatMap((k) => (req.query[k] === undefined ? [] : [[k, req.query[k]]])));
    res.json(await searchMemories(ctx, req.auth!, validate<SearchBody>(searchBody, { ...fromQuery, ...req.body })));
  });

  router.get('/v1/memories', requireScope('read'), async (req, res) => {
    const page = await listMemories(ctx, req.auth!, validate<ListMemoriesQuery>(listMemoriesQuery, req.query));
    res.json(listResponse(page, page.data, true));
  });

  router.get('/v1/memories/:id', requireScope('read'), async (req, res) => {
    res.json(await getMemory(ctx, req.auth!, pathId(req, 'Memory')));
  });

  router.patch('/v1/memories/:id', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Memory');
    res.json(await patchMemory(ctx, req.auth!, id, validate<PatchMemoryBody>(patchMemoryBody, req.body)));
  });

  router.delete('/v1/memories/:id', requireScope('delete'), async (req, res) => {
    await deleteMemory(ctx, req.auth!, pathId(req, 'Memory'));
    res.status(204).end();
  });

  router.post('/v1/memories/:id/restore', requireScope('write'), async (req, res) => {
    res.json(await restoreMemory(ctx, req.auth!, pathId(req, 'Memory')));
  });
  return router;
}
