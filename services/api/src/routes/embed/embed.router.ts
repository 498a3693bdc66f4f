import { Router } from 'express';
import { embed } from '@ams/vectors';
import type { EmbedBody } from '@ams/vectors';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';
import { validate } from '../../validation/validate';
import { embedBody } from './embed.schemas';

/** Embedding changes no data: read scope, like search. */
export function embedRouter(ctx: AppContext): Router {
  const router = Router();
  router.post('/v1/embed', requireScope('read'), async (req, res) => {
    res.json(await embed(store(ctx), validate<EmbedBody>(embedBody, req.body)));
  });
  return router;
}
