import Joi from 'joi';
import { RouteDocs, shape } from '../../openapi/route-docs';
import { reembedRun } from '../reembed/reembed.openapi';

// reembed: the open re-embed run's progress (done/total, rate, ETA), null when none runs.
const health = shape({ status: Joi.string(), database: Joi.string(), reembed: reembedRun.allow(null) });

export const healthOpenApi: RouteDocs = {
  'GET /v1/health': {
    summary: 'Service health',
    responses: {
      200: { description: 'Serving (possibly degraded: see the members)', schema: health },
      503: { description: 'The database is down', schema: health },
    },
  },
};
