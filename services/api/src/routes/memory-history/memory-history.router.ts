import { Router } from 'express';
import { listMemoryHistory, restoreMemoryVersion } from '@ams/memories';
import type { AppContext } from '../../context';
import { memoryDeps } from '../../memory-deps';
import { onReader } from '../../middleware/route-reads';
import { requireScope } from '../../middleware/require-scope';
import { listResponse } from '../../validation/common.schemas';
import { pathId, pathRef } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import { historyQuery, HistoryQueryParams, versionParam } from './memory-history.schemas';

/** A memory's versions: readable after a delete; a restore writes a new version. */
export function memoryHistoryRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/v1/memories/:id/history', requireScope('read'), async (req, res) => {
    const id = pathId(req, 'Memory');
    const page = await onReader(ctx, req, () => listMemoryHistory(memoryDeps(ctx, req), req.auth!, id, validate<HistoryQueryParams>(historyQuery, req.query)));
    res.json(listResponse(page, page.data, true));
  });

  router.post('/v1/memories/:id/history/:version/restore', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Memory');
    const version = Number(pathRef(req, versionParam, 'Memory version', 'version'));
    res.json(await restoreMemoryVersion(memoryDeps(ctx, req), req.auth!, id, version));
  });
  return router;
}
