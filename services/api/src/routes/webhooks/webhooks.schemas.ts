import Joi from 'joi';
import type { Cursor } from '@ams/db';
import { EVENT_TYPES } from '@ams/memories';
import type { WebhookInput } from '@ams/webhooks';
import { pagination } from '../../validation/common.schemas';

const url = Joi.string()
  .max(2_048)
  .uri({ scheme: ['https'] })
  .messages({ 'string.uriCustomScheme': '{{#label}} must be an https URL' });

export type WebhookBody = WebhookInput;

const fields = {
  url,
  event_types: Joi.array().items(Joi.string().valid(...EVENT_TYPES)).unique(),
  secret: Joi.string().min(1).max(256),
  description: Joi.string().allow('').max(255),
};

export const createWebhookBody = Joi.object<WebhookBody>({ ...fields, url: url.required(), event_types: fields.event_types.default([]) });

export const patchWebhookBody = Joi.object<Partial<WebhookBody>>({ ...fields, enabled: Joi.boolean() })
  .min(1)
  .messages({ 'object.min': 'Request body must change at least one field' });

export const listDeliveriesQuery = Joi.object<{ limit: number; offset: number; cursor?: Cursor }>(pagination);
