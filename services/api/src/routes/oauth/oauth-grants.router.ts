import { Router } from 'express';
import { listGrants, presentGrant, revokeGrant } from '@ams/accounts';
import { ApiError } from '@ams/core';
import type { AppContext } from '../../context';
import { oauthDeps } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';
import { listResponse } from '../../validation/common.schemas';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import { listGrantsQuery, ListQuery } from './oauth-grants.schemas';

/** The connectors that signed in through OAuth: admin scope, as API keys are, since a grant gives access. */
export function oauthGrantsRouter(ctx: AppContext): Router {
  const router = Router();
  router.use('/v1/oauth/grants', requireScope('admin'));

  router.get('/v1/oauth/grants', async (req, res) => {
    const query = validate<ListQuery>(listGrantsQuery, req.query);
    const page = await listGrants(oauthDeps(ctx), req.auth!.accountId, query);
    res.json(listResponse(page, page.rows.map(presentGrant)));
  });

  router.delete('/v1/oauth/grants/:id', async (req, res) => {
    if (!(await revokeGrant(oauthDeps(ctx), req.auth!.accountId, pathId(req, 'OAuth grant')))) throw ApiError.notFound('OAuth grant');
    res.status(204).end();
  });
  return router;
}
