import { Router } from 'express';
import { buildContext } from '@ams/knowledge';
import type { AppContext } from '../../context';
import { requestResources } from '../../memory-deps';
import { onReader } from '../../middleware/route-reads';
import { requireScope } from '../../middleware/require-scope';
import { validate } from '../../validation/validate';
import { buildContextBody, BuildContextBody } from './context.schemas';

/** Context build, and the two spellings existing clients use for it (docs/clients.md, "Additional endpoints"). */
const CONTEXT_BUILD_PATHS = ['/v2/context/build', '/v2/context', '/v1/memories/context'];

export function contextRouter(ctx: AppContext): Router {
  const router = Router();
  router.post(CONTEXT_BUILD_PATHS, requireScope('read'), async (req, res) => {
    res.json(await onReader(ctx, req, () => buildContext(requestResources(ctx, req), req.auth!, validate<BuildContextBody>(buildContextBody, req.body))));
  });
  return router;
}
