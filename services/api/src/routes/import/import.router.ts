import { Router } from 'express';
import type { AppContext } from '../../context';
import { requireScope } from '../../middleware/require-scope';
import { importRecords } from '../../services/import/import.service';
import { ndjsonLines } from '../../services/import/ndjson-lines';
import { validate } from '../../validation/validate';
import { ImportQuery, importQuery } from './import.schemas';

export const MAX_IMPORT_LINE_BYTES = 2 * 1024 * 1024;

/**
 * POST /v1/import (admin): an export's NDJSON as the raw body, read line by line as it arrives
 * (mounted before the JSON body parser: the body is a stream, not one JSON value).
 */
export function importRouter(ctx: AppContext): Router {
  const router = Router();
  router.post('/v1/import', requireScope('admin'), async (req, res) => {
    const q = validate<ImportQuery>(importQuery, req.query);
    res.json(await importRecords(ctx, req.auth!, ndjsonLines(req, MAX_IMPORT_LINE_BYTES), q));
  });
  return router;
}
