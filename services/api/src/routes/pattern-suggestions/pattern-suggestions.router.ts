import { Router } from 'express';
import { suggestPatterns } from '@ams/knowledge';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';
import { validate } from '../../validation/validate';
import { suggestPatternsQuery, SuggestPatternsQuery } from './pattern-suggestions.schemas';

/** Mounted before the patterns router: the literal segment wins over /v1/patterns/{id} (docs/clients.md, "Method and path variants"). */
export function patternSuggestionsRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/v1/patterns/suggest', requireScope('read'), async (req, res) => {
    res.json(await suggestPatterns(store(ctx), req.auth!, validate<SuggestPatternsQuery>(suggestPatternsQuery, req.query)));
  });
  return router;
}
