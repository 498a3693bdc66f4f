import Joi from 'joi';
import { RouteDocs, shape } from '../../openapi/route-docs';

const health = shape({ status: Joi.string(), database: Joi.string() });

export const healthOpenApi: RouteDocs = {
  'GET /v1/health': {
    summary: 'Service health',
    responses: {
      200: { description: 'Serving (possibly degraded: see the members)', schema: health },
      503: { description: 'The database is down', schema: health },
    },
  },
};
