import { Router } from 'express';
import type { AppContext } from '../../context';
import { requireScope } from '../../middleware/require-scope';
import { embed } from '@ams/vectors';
import { validate } from '../../validation/validate';
import { embedBody } from './embed.schemas';
import type { EmbedBody } from '@ams/vectors';

/** Embedding changes no data: read scope, like search. */
export function embedRouter(ctx: AppContext): Router {
  const router = Router();
  router.post('/v1/embed', requireScope('read'), async (req, res) => {
    res.json(await embed(ctx, validate<EmbedBody>(embedBody, req.body)));
  });
  return router;
}
