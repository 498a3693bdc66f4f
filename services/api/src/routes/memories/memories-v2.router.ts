import { Router } from 'express';
import { createMemoryAsync, memoryStatus, retryEmbedding } from '@ams/memories';
import { assertWebhookTarget } from '@ams/webhooks';
import type { AppContext } from '../../context';
import { webhookDeps } from '../../domain-deps';
import { sendJson } from '../../lib/json-response';
import { memoryDeps } from '../../memory-deps';
import { onReader } from '../../middleware/route-reads';
import { requireScope } from '../../middleware/require-scope';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import { createMemoryV2Body, CreateMemoryV2Body } from './memories.schemas';

export function memoriesV2Router(ctx: AppContext): Router {
  const router = Router();

  router.post('/v2/memories', requireScope('write'), async (req, res) => {
    const body = validate<CreateMemoryV2Body>(createMemoryV2Body, req.body);
    if (body.webhook_url !== undefined) assertWebhookTarget(webhookDeps(ctx), 'webhook_url', body.webhook_url);
    sendJson(res, 202, await createMemoryAsync(memoryDeps(ctx, req), req.auth!, body));
  });

  router.get('/v2/memories/:id/status', requireScope('read'), async (req, res) => {
    res.json(await onReader(ctx, req, () => memoryStatus(memoryDeps(ctx, req), req.auth!, pathId(req, 'Memory'))));
  });

  router.post('/v2/memories/:id/retry', requireScope('write'), async (req, res) => {
    res.json(await retryEmbedding(memoryDeps(ctx, req), req.auth!, pathId(req, 'Memory')));
  });
  return router;
}
