import Joi from 'joi';
import { RouteDocs, shape } from '../../openapi/route-docs';
import { reembedRun } from '../reembed/reembed.openapi';

// reembed: the open re-embed run's progress (done/total, rate, ETA), null when none runs.
// replicas: with DATABASE_REPLICA_URLS only; each read replica's state and lag (docs/operations.md, "Read replicas").
const replica = Joi.object({
  name: Joi.string().description('host:port/database of the replica').required(),
  state: Joi.string().valid('starting', 'up', 'lagging', 'down', 'not_a_standby').description('up: in rotation; lagging: further behind than DATABASE_REPLICA_MAX_LAG_MS; down: unreachable').required(),
  lag_ms: Joi.number().integer().allow(null).description('Upper bound on how far behind the primary its data is; null before it has caught up once').required(),
  lag_bytes: Joi.number().integer().allow(null).description("WAL bytes the primary had written past the replica's replay position at the last check").required(),
  error: Joi.string().description('Why it is down'),
});
const embedding = shape({
  provider: Joi.string(),
  model: Joi.string(),
  dimensions: Joi.number().integer(),
  fallback: Joi.boolean().optional().description('Serving with the fallback embedder'),
  fallback_reason: Joi.string().optional(),
});
const component = Joi.string().valid('connected', 'disconnected', 'not_configured');
const health = shape({
  status: Joi.string().valid('healthy', 'degraded'),
  version: Joi.string(),
  mode: Joi.string(),
  database: component,
  redis: component,
  embedding,
  reembed: reembedRun.allow(null),
  replicas: Joi.array().items(replica).optional(),
});

export const healthOpenApi: RouteDocs = {
  'GET /v1/health': {
    summary: 'Service health',
    responses: {
      200: { description: 'Serving (possibly degraded: see the members)', schema: health },
      503: { description: 'The database is down', schema: health },
    },
  },
};
