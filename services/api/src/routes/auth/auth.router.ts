import { Router, RequestHandler } from 'express';
import type { AppContext } from '../../context';
import { registerAccount } from '@ams/accounts';
import { validate } from '../../validation/validate';
import { registerBody, RegisterBody } from './auth.schemas';

export function authRouter(ctx: AppContext, before: RequestHandler[]): Router {
  const router = Router();
  router.post('/v1/auth/register', ...before, async (req, res) => {
    const body = validate<RegisterBody>(registerBody, req.body);
    res.status(201).json(await registerAccount(ctx, body));
  });
  return router;
}
