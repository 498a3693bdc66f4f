import { Router } from 'express';
import type { AppContext } from '../../context';
import { requireScope } from '../../middleware/require-scope';
import { getRetieringSettings, listTierMoves, runRetieringNow, saveRetieringSettings } from '@ams/memories';
import { retieringDeps } from '../../domain-deps';
import { listResponse } from '../../validation/common.schemas';
import { validate } from '../../validation/validate';
import { RetieringSettingsBody, retieringSettingsBody, TierMovesQuery, tierMovesQuery } from './retiering.schemas';

/** Re-tiering by use and age (docs/api.md, "Re-tiering"): reading is `read`, changing the rules or running it is `admin`. */
export function retieringRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/v1/retiering', requireScope('read'), async (req, res) => {
    res.json(await getRetieringSettings(retieringDeps(ctx), req.auth!.accountId));
  });
  router.patch('/v1/retiering', requireScope('admin'), async (req, res) => {
    res.json(await saveRetieringSettings(retieringDeps(ctx), req.auth!.accountId, validate<RetieringSettingsBody>(retieringSettingsBody, req.body)));
  });
  router.post('/v1/retiering/run', requireScope('admin'), async (req, res) => {
    res.json(await runRetieringNow(retieringDeps(ctx), req.auth!.accountId));
  });
  router.get('/v1/retiering/moves', requireScope('read'), async (req, res) => {
    const page = await listTierMoves(retieringDeps(ctx), req.auth!.accountId, validate<TierMovesQuery>(tierMovesQuery, req.query));
    res.json(listResponse(page, page.data, true));
  });
  return router;
}
