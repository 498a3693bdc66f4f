import { Router } from 'express';
import { getLimits, setLimits, type LimitOverrides } from '@ams/accounts';
import type { AppContext } from '../../context';
import { limitsDeps } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';
import { pathId } from '../../validation/path-params';
import { validateExact } from '../../validation/validate';
import { patchLimitsBody, putLimitsBody } from './account-limits.schemas';

/** The operator's per-account limits (admin key of the operator's account; others get 403). */
export function accountLimitsRouter(ctx: AppContext): Router {
  const router = Router();
  const path = '/v1/admin/accounts/:id/limits';
  router.use(path, requireScope('admin'));
  router.get(path, async (req, res) => {
    res.json(await getLimits(limitsDeps(ctx), req.auth!, pathId(req, 'Account')));
  });
  router.put(path, async (req, res) => {
    const id = pathId(req, 'Account');
    const body = validateExact<Partial<LimitOverrides>>(putLimitsBody, req.body ?? {});
    res.json(await setLimits(limitsDeps(ctx), req.auth!, id, body, true));
  });
  router.patch(path, async (req, res) => {
    const id = pathId(req, 'Account');
    const body = validateExact<Partial<LimitOverrides>>(patchLimitsBody, req.body ?? {});
    res.json(await setLimits(limitsDeps(ctx), req.auth!, id, body, false));
  });
  return router;
}
