import Joi from 'joi';
import { RouteDocs, shape } from '../../openapi/route-docs';
import { buildContextBody } from './context.schemas';

export const contextOpenApi: RouteDocs = {
  'POST /v2/context/build': {
    summary: 'Build a prompt context from the most relevant memories within a token budget',
    body: buildContextBody,
    responses: {
      200: {
        description: 'The context, ready to put in a prompt',
        schema: shape({ context: Joi.string().allow(''), memories_used: Joi.number().integer(), total_chars: Joi.number().integer() }),
      },
    },
  },
};
