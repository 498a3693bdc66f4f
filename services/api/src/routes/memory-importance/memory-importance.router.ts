import { Router } from 'express';
import type { Tier } from '@ams/db';
import type { AppContext } from '../../context';
import { requireScope } from '../../middleware/require-scope';
import { setImportance } from '../../services/memory-importance.service';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import { importanceBody } from './memory-importance.schemas';

export function memoryImportanceRouter(ctx: AppContext): Router {
  const router = Router();
  router.put('/v1/memories/:id/importance', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Memory');
    res.json(await setImportance(ctx, req.auth!, id, validate<{ importance: number; tier?: Tier }>(importanceBody, req.body)));
  });
  return router;
}
