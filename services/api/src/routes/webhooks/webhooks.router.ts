import { Router } from 'express';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  patchWebhook,
  retryDelivery,
} from '@ams/webhooks';
import type { AppContext } from '../../context';
import { webhookDeps } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';
import { listResponse } from '../../validation/common.schemas';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import { createWebhookBody, listDeliveriesQuery, patchWebhookBody, WebhookBody } from './webhooks.schemas';

/** Admin scope throughout: a webhook exports the account's data to a URL. */
export function webhooksRouter(ctx: AppContext): Router {
  const router = Router();
  router.use('/v1/webhooks', requireScope('admin'));

  router.post('/v1/webhooks', async (req, res) => {
    res.status(201).json(await createWebhook(webhookDeps(ctx), req.auth!, validate<WebhookBody>(createWebhookBody, req.body)));
  });

  router.get('/v1/webhooks', async (req, res) => {
    res.json(await listWebhooks(webhookDeps(ctx), req.auth!));
  });

  router.get('/v1/webhooks/:id', async (req, res) => {
    res.json(await getWebhook(webhookDeps(ctx), req.auth!, pathId(req, 'Webhook')));
  });

  router.patch('/v1/webhooks/:id', async (req, res) => {
    const id = pathId(req, 'Webhook');
    res.json(await patchWebhook(webhookDeps(ctx), req.auth!, id, validate<Partial<WebhookBody>>(patchWebhookBody, req.body)));
  });

  router.delete('/v1/webhooks/:id', async (req, res) => {
    await deleteWebhook(webhookDeps(ctx), req.auth!, pathId(req, 'Webhook'));
    res.status(204).end();
  });

  router.get('/v1/webhooks/:id/deliveries', async (req, res) => {
    const id = pathId(req, 'Webhook');
    const page = await listDeliveries(webhookDeps(ctx), req.auth!, id, validate<{ limit: number; offset: number }>(listDeliveriesQuery, req.query));
    res.json(listResponse(page, page.data));
  });

  router.post('/v1/webhooks/:id/deliveries/:deliveryId/retry', async (req, res) => {
    const id = pathId(req, 'Webhook');
    res.json(await retryDelivery(webhookDeps(ctx), req.auth!, id, pathId(req, 'Delivery', 'deliveryId')));
  });
  return router;
}
