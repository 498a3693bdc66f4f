import Joi from 'joi';
import { pattern } from '../patterns/patterns.openapi';
import { RouteDocs, shape } from '../../openapi/route-docs';
import { suggestPatternsQuery } from './pattern-suggestions.schemas';

export const patternSuggestionsOpenApi: RouteDocs = {
  'GET /v1/patterns/suggest': {
    summary: 'Global patterns the project has not adopted, most adopted first',
    tag: 'patterns',
    query: suggestPatternsQuery,
    responses: {
      200: { description: 'Suggested patterns', schema: shape({ data: Joi.array().items(pattern), project: Joi.string(), total: Joi.number().integer() }) },
    },
  },
};
