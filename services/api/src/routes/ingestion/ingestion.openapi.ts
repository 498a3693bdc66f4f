import Joi from 'joi';
import { RouteDocs, shape } from '../../openapi/route-docs';

export const ingestionOpenApi: RouteDocs = {
  'GET /v1/ingestion': {
    summary: 'Embedding backlog and rate of this account',
    responses: {
      200: {
        description: 'The ingestion picture',
        schema: shape({
          object: Joi.string().valid('ingestion_status'),
          memories: shape({ pending: Joi.number().integer(), processing: Joi.number().integer(), ready: Joi.number().integer(), failed: Joi.number().integer() }).description("The caller's memories by embedding status"),
          backlog: shape({ pending: Joi.number().integer(), processing: Joi.number().integer() }),
          rate_per_second: Joi.number().allow(null),
          batches_last_minute: Joi.number().integer(),
          estimated_drain_seconds: Joi.number().integer().allow(null),
          embedder: shape({ provider: Joi.string(), model: Joi.string() }),
        }),
      },
    },
  },
};
