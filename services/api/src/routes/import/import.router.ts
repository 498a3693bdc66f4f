import { Router } from 'express';
import { presentImportJob } from '@ams/portability';
import type { AppContext } from '../../context';
import { requireScope } from '../../middleware/require-scope';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import { ImportQuery, importQuery } from './import.schemas';

/**
 * POST /v1/import (admin): an export's NDJSON as the raw body (mounted before the JSON body parser:
 * the body is a stream, not one JSON value), accepted as a job once received: 202 with the job.
 * GET /v1/import/jobs/{id}: the job's progress, exact at every moment.
 */
export function importRouter(ctx: AppContext): Router {
  const router = Router();
  router.post('/v1/import', requireScope('admin'), async (req, res) => {
    const q = validate<ImportQuery>(importQuery, req.query);
    const job = await ctx.imports!.start(req.auth!.accountId, req, q);
    res.status(202).location(`/v1/import/jobs/${job.id}`).json(presentImportJob(job));
  });
  router.get('/v1/import/jobs/:id', requireScope('admin'), async (req, res) => {
    res.json(presentImportJob(await ctx.imports!.get(req.auth!.accountId, pathId(req, 'Import job'))));
  });
  return router;
}
