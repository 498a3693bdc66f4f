import { Router } from 'express';
import { setImportance, type SetImportanceInput } from '@ams/memories';
import type { AppContext } from '../../context';
import { memoryDeps } from '../../memory-deps';
import { requireScope } from '../../middleware/require-scope';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import { importanceBody } from './memory-importance.schemas';

export function memoryImportanceRouter(ctx: AppContext): Router {
  const router = Router();
  router.put('/v1/memories/:id/importance', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Memory');
    res.json(await setImportance(memoryDeps(ctx, req), req.auth!, id, validate<SetImportanceInput>(importanceBody, req.body)));
  });
  return router;
}
