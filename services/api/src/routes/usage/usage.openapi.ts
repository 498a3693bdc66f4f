import Joi from 'joi';
import { RouteDocs, shape, uuidOut } from '../../openapi/route-docs';
import { adminUsageQuery } from './usage.schemas';

const limit = Joi.number().integer().allow(null);
const activity = (limitName: string) => shape({ today: Joi.number().integer(), this_month: Joi.number().integer(), [limitName]: limit });

const usage = shape({
  object: Joi.string().valid('usage'),
  account_id: uuidOut,
  day: Joi.string().description('The UTC day counted as today (YYYY-MM-DD)'),
  month: Joi.string().description('The UTC month counted as this month (YYYY-MM)'),
  memories: shape({ used: Joi.number().integer(), limit }),
  storage_bytes: shape({ used: Joi.number().integer(), limit }),
  vectors: shape({ used: Joi.number().integer() }),
  requests: activity('limit_per_minute'),
  searches: activity('limit_per_day'),
  embeddings: activity('limit_per_day'),
  fair_share_weight: Joi.number(),
});

const WHAT =
  'Live memories, their stored bytes (content + metadata as JSON text + 4 bytes per vector dimension) and vectors, ' +
  'and the requests, searches and embeddings of today and this month (UTC), each with its limit (null: unlimited).';

export const usageOpenApi: RouteDocs = {
  'GET /v1/usage': {
    summary: "The account's usage against its limits",
    description: WHAT,
    responses: { 200: { description: "The calling account's usage", schema: usage } },
  },
  'GET /v1/admin/usage': {
    summary: "Any account's usage (operator)",
    tag: 'admin',
    description: `${WHAT} Only an admin key of the operator's account may read another account's.`,
    query: adminUsageQuery,
    responses: { 200: { description: "The account's usage", schema: usage } },
    errors: { 403: "The key is not an admin key of the operator's account", 404: 'No such account' },
  },
};
