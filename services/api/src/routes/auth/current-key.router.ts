import { Router } from 'express';
import type { AppContext } from '../../context';

/** The calling key's own grants, so a client (the console) can hide what the key may not do. Any valid key. */
export function currentKeyRouter(_ctx: AppContext): Router {
  const router = Router();
  router.get('/v1/auth/key', (req, res) => {
    const auth = req.auth!;
    res.json({ object: 'api_key', id: auth.keyId, scopes: auth.scopes, agent_id: auth.agentId });
  });
  return router;
}
