import Joi from 'joi';
import { isoTime, listOf, nullableIso, RouteDocs, shape, strings, uuidOut } from '../../openapi/route-docs';
import { createWebhookBody, listDeliveriesQuery, patchWebhookBody } from './webhooks.schemas';

const webhook = shape({
  id: uuidOut,
  url: Joi.string(),
  event_types: strings,
  enabled: Joi.boolean(),
  disabled_reason: Joi.string().allow(null),
  description: Joi.string().allow(null),
  has_secret: Joi.boolean(),
  created_at: isoTime,
  updated_at: isoTime,
});

const delivery = shape({
  id: uuidOut,
  webhook_id: uuidOut,
  event_id: Joi.string(),
  event_type: Joi.string(),
  status: Joi.string(),
  attempts: Joi.number().integer(),
  last_status_code: Joi.number().integer().allow(null),
  last_error: Joi.string().allow(null),
  response_excerpt: Joi.string().allow(null, ''),
  next_attempt_at: nullableIso,
  last_attempt_at: nullableIso,
  created_at: isoTime,
});

export const webhooksOpenApi: RouteDocs = {
  'POST /v1/webhooks': {
    summary: 'Subscribe a URL to events',
    body: createWebhookBody,
    example: { url: 'https://example.com/hooks/memory', event_types: ['memory.created'], secret: 'a shared secret' },
    responses: { 201: { description: 'Subscribed', schema: webhook } },
  },
  'GET /v1/webhooks': { summary: 'List webhooks', responses: { 200: { description: 'Every webhook of the account', schema: shape({ data: Joi.array().items(webhook) }) } } },
  'GET /v1/webhooks/:id': { summary: 'Get a webhook', responses: { 200: { description: 'The webhook', schema: webhook } } },
  'PATCH /v1/webhooks/:id': { summary: 'Update a webhook', body: patchWebhookBody, responses: { 200: { description: 'The updated webhook', schema: webhook } } },
  'DELETE /v1/webhooks/:id': { summary: 'Delete a webhook', responses: { 204: { description: 'Deleted' } } },
  'GET /v1/webhooks/:id/deliveries': {
    summary: "A webhook's deliveries",
    query: listDeliveriesQuery,
    responses: { 200: { description: 'A page of deliveries', schema: listOf(delivery) } },
  },
  'POST /v1/webhooks/:id/deliveries/:deliveryId/retry': {
    summary: 'Send a failed delivery again',
    errors: { 409: 'The delivery has not failed' },
    responses: { 200: { description: 'The delivery, pending again', schema: delivery } },
  },
};
