import { Router } from 'express';
import { accountUsageForOperator, ownUsage } from '@ams/accounts';
import type { AppContext } from '../../context';
import { limitsDeps } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';
import { validate } from '../../validation/validate';
import { adminUsageQuery } from './usage.schemas';

/** The calling account's usage against its limits; any account's for the operator. */
export function usageRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/v1/usage', requireScope('read'), async (req, res) => {
    res.json(await ownUsage(limitsDeps(ctx), req.auth!));
  });
  router.get('/v1/admin/usage', requireScope('admin'), async (req, res) => {
    const { account } = validate<{ account: string }>(adminUsageQuery, req.query);
    res.json(await accountUsageForOperator(limitsDeps(ctx), req.auth!, account.toLowerCase()));
  });
  return router;
}
