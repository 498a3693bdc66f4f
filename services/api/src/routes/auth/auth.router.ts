import { Router, RequestHandler } from 'express';
import { registerAccount } from '@ams/accounts';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { validate } from '../../validation/validate';
import { registerBody, RegisterBody } from './auth.schemas';

export function authRouter(ctx: AppContext, before: RequestHandler[]): Router {
  const router = Router();
  router.post('/v1/auth/register', ...before, async (req, res) => {
    const body = validate<RegisterBody>(registerBody, req.body);
    res.status(201).json(await registerAccount(store(ctx), body));
  });
  return router;
}
