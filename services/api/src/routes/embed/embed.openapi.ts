import Joi from 'joi';
import { RouteDocs, shape } from '../../openapi/route-docs';
import { embedBody } from './embed.schemas';

const vector = Joi.array().items(Joi.number());

export const embedOpenApi: RouteDocs = {
  'POST /v1/embed': {
    summary: "Vectors of the memories' embedding model for a text (`text`) or several (`texts`)",
    body: embedBody,
    example: { text: 'How do we deploy?' },
    responses: {
      200: {
        description: '`embedding` for `text`, `embeddings` for `texts`',
        schema: shape({
          object: Joi.string().valid('embedding'),
          model: Joi.string(),
          dimension: Joi.number().integer(),
          embedding: vector.optional(),
          embeddings: Joi.array().items(vector).optional(),
        }),
      },
    },
  },
};
