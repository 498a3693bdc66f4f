import Joi from 'joi';
import { isoTime, nullableIso, RouteDocs, shape, uuidOut } from '../../openapi/route-docs';
import { startReembedBody } from './reembed.schemas';

export const reembedRun = shape({
  object: Joi.string().valid('reembed_run'),
  id: uuidOut,
  status: Joi.string().valid('running', 'switched', 'completed', 'failed'),
  from_model: Joi.string(),
  target_model: Joi.string(),
  dimensions: Joi.number().integer(),
  done: Joi.number().integer(),
  total: Joi.number().integer(),
  rate_per_second: Joi.number().allow(null),
  eta_seconds: Joi.number().integer().allow(null),
  error: Joi.string().allow(null),
  started_at: isoTime,
  switched_at: nullableIso,
  finished_at: nullableIso,
});

export const reembedOpenApi: RouteDocs = {
  'POST /v1/admin/reembed': {
    summary: 'Re-embed the store with another model, online',
    description:
      'Starts a background run that embeds every memory, decision and pattern with `model` (default: the configured ' +
      '`EMBEDDING_MODEL`; its files must be in `MODEL_DIR`). Searches keep using the current model until the run ' +
      'switches; then the new model takes over at once. Progress: `GET /v1/admin/reembed` and `/v1/health`. ' +
      "The model is every account's: only an admin key of the operator's account (the oldest, whose key the first start printed) may start a run.",
    body: startReembedBody,
    example: { model: 'Xenova/bge-small-en-v1.5' },
    responses: { 202: { description: 'The run, started', schema: reembedRun } },
    errors: { 403: "The key is not an admin key of the operator's account", 409: 'A re-embed run is already in progress' },
  },
  'GET /v1/admin/reembed': {
    summary: 'The active embedding model and the latest re-embed run',
    responses: {
      200: {
        description: 'Active model and run',
        schema: shape({ object: Joi.string().valid('reembed_status'), active_model: Joi.string(), dimensions: Joi.number().integer(), run: reembedRun.allow(null) }),
      },
    },
  },
};
