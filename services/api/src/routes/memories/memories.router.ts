import { Router } from 'express';
import { createBatch, createMemory, deleteMemory, getMemory, listMemories, patchMemory, restoreMemory, searchMemories } from '@ams/memories';
import type { AppContext } from '../../context';
import { sendJson } from '../../lib/json-response';
import { memoryDeps, withinSearchDeadline } from '../../memory-deps';
import { onReader } from '../../middleware/route-reads';
import { requireScope } from '../../middleware/require-scope';
import { listResponse } from '../../validation/common.schemas';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import {
  batchBody,
  BatchBody,
  compileMetadataFilter,
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
    const { status, memory } = await createMemory(memoryDeps(ctx, req), req.auth!, validate<CreateMemoryBody>(createMemoryBody, req.body));
    sendJson(res, status, memory);
  });

  router.post('/v1/memories/batch', requireScope('write'), async (req, res) => {
    res.json(await createBatch(memoryDeps(ctx, req), req.auth!, validate<BatchBody>(batchBody, req.body)));
  });

  router.post('/v1/memories/search', requireScope('read'), async (req, res) => {
    // scope and session_id may come in the query string (docs/clients.md, "Search narrowing"); the body wins.
    const fromQuery = Object.fromEntries(SEARCH_QUERY_PARAMS.flatMap((k) => (req.query[k] === undefined ? [] : [[k, req.query[k]]])));
    const body = validate<SearchBody>(searchBody, { ...fromQuery, ...req.body });
    sendJson(res, 200, await withinSearchDeadline(ctx, req, res, () => onReader(ctx, req, () => searchMemories(memoryDeps(ctx, req), req.auth!, { ...body, metadata_filter: compileMetadataFilter(body.metadata_filter) }))));
  });

  router.get('/v1/memories', requireScope('read'), async (req, res) => {
    const page = await onReader(ctx, req, () => listMemories(memoryDeps(ctx, req), req.auth!, validate<ListMemoriesQuery>(listMemoriesQuery, req.query)));
    res.json(listResponse(page, page.data, true));
  });

  router.get('/v1/memories/:id', requireScope('read'), async (req, res) => {
    res.json(await onReader(ctx, req, () => getMemory(memoryDeps(ctx, req), req.auth!, pathId(req, 'Memory'))));
  });

  router.patch('/v1/memories/:id', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Memory');
    res.json(await patchMemory(memoryDeps(ctx, req), req.auth!, id, validate<PatchMemoryBody>(patchMemoryBody, req.body)));
  });

  router.delete('/v1/memories/:id', requireScope('delete'), async (req, res) => {
    await deleteMemory(memoryDeps(ctx, req), req.auth!, pathId(req, 'Memory'));
    res.status(204).end();
  });

  router.post('/v1/memories/:id/restore', requireScope('write'), async (req, res) => {
    res.json(await restoreMemory(memoryDeps(ctx, req), req.auth!, pathId(req, 'Memory')));
  });
  return router;
}
