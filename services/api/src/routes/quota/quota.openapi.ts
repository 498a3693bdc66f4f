import Joi from 'joi';
import { isoTime, json, RouteDocs, shape } from '../../openapi/route-docs';

export const quotaOpenApi: RouteDocs = {
  'GET /v1/quota': {
    summary: "The key's rate window and the account's usage",
    responses: {
      200: {
        description: 'Requests used and left in the current window, and what the account stores',
        schema: shape({
          object: Joi.string().valid('quota'),
          used: Joi.number().integer(),
          limit: Joi.number().integer(),
          remaining: Joi.number().integer(),
          resetAt: isoTime,
          reset_at: isoTime,
          window_seconds: Joi.number().integer(),
          usage: json,
        }),
      },
    },
  },
};
