import Joi from 'joi';
import { entity } from '../../routes/entities/entities.openapi';
import { isoTime, RouteDocs, shape, uuidOut } from '../route-docs';

/**
 * PRE-WRITTEN, NOT REGISTERED: the route docs of the `console` branch's additions (GET /v1/auth/key,
 * GET /v1/ingestion, GET /v1/entities/:id/graph and the static console at /). When that branch is
 * merged, move this beside its routers and add `...consoleOpenApi` to all-route-docs.ts (the parity
 * test fails until then). Response shapes follow console's services as of its commit b80ae4d.
 */
const page = (what: string) => ({
  summary: what,
  tag: 'console',
  responses: { 200: { description: 'The page', contentType: 'text/html', schema: Joi.string() } },
});

export const consoleOpenApi: RouteDocs = {
  'GET /': page('The web console (routes live in the URL fragment; it calls /v1 with the user\'s key)'),
  'GET /index.html': page('The web console page'),
  'GET /favicon.svg': {
    summary: "The console's icon",
    tag: 'console',
    responses: { 200: { description: 'The icon', contentType: 'image/svg+xml', schema: Joi.string() } },
  },
  'GET /v1/auth/key': {
    summary: "The calling key's own grants (so a client can hide what it may not do)",
    tag: 'auth',
    responses: {
      200: {
        description: 'The key',
        schema: shape({
          object: Joi.string().valid('api_key'),
          id: uuidOut,
          scopes: Joi.array().items(Joi.string().valid('read', 'write', 'delete', 'admin')),
          agent_id: uuidOut.allow(null).optional(),
        }),
      },
    },
  },
  'GET /v1/ingestion': {
    summary: 'Embedding backlog and rate of this account',
    responses: {
      200: {
        description: 'The ingestion picture',
        schema: shape({
          object: Joi.string().valid('ingestion_status'),
          memories: Joi.object().unknown(true),
          backlog: shape({ pending: Joi.number().integer(), processing: Joi.number().integer() }),
          rate_per_second: Joi.number().allow(null),
          batches_last_minute: Joi.number().integer(),
          estimated_drain_seconds: Joi.number().integer().allow(null),
          embedder: shape({ provider: Joi.string(), model: Joi.string() }),
        }),
      },
    },
  },
  'GET /v1/entities/:id/graph': {
    summary: 'An entity with its linked memories and co-mentioned entities',
    responses: {
      200: {
        description: 'The graph around the entity',
        schema: shape({
          object: Joi.string().valid('entity_graph'),
          entity,
          memories: Joi.array().items(
            shape({
              memory_id: uuidOut,
              agent_id: uuidOut.allow(null),
              content_preview: Joi.string(),
              relationship: Joi.string().allow(null),
              relevance_score: Joi.number(),
              created_at: isoTime,
            }),
          ),
          neighbours: Joi.array().items(shape({ id: uuidOut, name: Joi.string(), entity_type: Joi.string(), shared_memories: Joi.number().integer() })),
        }),
      },
    },
  },
};
