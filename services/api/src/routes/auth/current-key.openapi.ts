import Joi from 'joi';
import { RouteDocs, shape, uuidOut } from '../../openapi/route-docs';

export const currentKeyOpenApi: RouteDocs = {
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
};
