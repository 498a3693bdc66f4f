import { Router } from 'express';
import { createApiKey, listApiKeys, presentApiKey, revokeApiKey } from '@ams/accounts';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';
import { listResponse } from '../../validation/common.schemas';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import { createApiKeyBody, CreateApiKeyBody, listApiKeysQuery, ListQuery } from './api-keys.schemas';

/** API key management: admin scope, since a key grants access. */
export function apiKeysRouter(ctx: AppContext): Router {
  const router = Router();
  router.use('/v1/api-keys', requireScope('admin'));

  router.post('/v1/api-keys', async (req, res) => {
    const body = validate<CreateApiKeyBody>(createApiKeyBody, req.body);
    const { row, key } = await createApiKey(store(ctx), req.auth!, {
      name: body.name,
      scopes: body.scopes,
      expiresAt: body.expires_at ?? null,
      agentId: body.agent_id ?? null,
    });
    res.status(201).json({ ...presentApiKey(row), key });
  });

  router.get('/v1/api-keys', async (req, res) => {
    const query = validate<ListQuery>(listApiKeysQuery, req.query);
    const page = await listApiKeys(store(ctx), req.auth!.accountId, query);
    res.json(listResponse(page, page.rows.map(presentApiKey)));
  });

  router.delete('/v1/api-keys/:id', async (req, res) => {
    await revokeApiKey(store(ctx), req.auth!.accountId, pathId(req, 'API key'));
    res.status(204).end();
  });
  return router;
}
