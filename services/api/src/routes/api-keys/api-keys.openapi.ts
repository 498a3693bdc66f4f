import Joi from 'joi';
import { isoTime, listOf, nullableIso, RouteDocs, shape, strings, uuidOut } from '../../openapi/route-docs';
import { createApiKeyBody, listApiKeysQuery } from './api-keys.schemas';

const apiKeyFields = {
  object: Joi.string().valid('api_key'),
  id: uuidOut,
  name: Joi.string(),
  key_prefix: Joi.string(),
  scopes: strings,
  agent_id: uuidOut.allow(null),
  expires_at: nullableIso,
  revoked_at: nullableIso,
  last_used_at: nullableIso,
  created_at: isoTime,
};
const apiKey = shape(apiKeyFields);

export const apiKeysOpenApi: RouteDocs = {
  'POST /v1/api-keys': {
    summary: 'Create an API key',
    description: 'The raw `key` is in this response only. A key can only grant scopes its creator holds.',
    body: createApiKeyBody,
    example: { name: 'read-only agent', scopes: ['read'] },
    responses: { 201: { description: 'Created, with the raw key', schema: shape({ ...apiKeyFields, key: Joi.string() }) } },
  },
  'GET /v1/api-keys': { summary: 'List API keys (never the key itself)', query: listApiKeysQuery, responses: { 200: { description: 'A page of keys', schema: listOf(apiKey) } } },
  'DELETE /v1/api-keys/:id': { summary: 'Revoke an API key', responses: { 204: { description: 'Revoked' } } },
};
