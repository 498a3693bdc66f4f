import Joi from 'joi';
import { RouteDocs } from '../../openapi/route-docs';

export const metricsOpenApi: RouteDocs = {
  'GET /metrics': {
    summary: "Prometheus metrics of this API process (the operator's admin key)",
    description:
      "Counts every account's requests, so only an admin key of the operator's account (the oldest, whose key the first start printed) may read it; " +
      'any other key gets 403. METRICS_PORT serves the same text without a key on a private listener of its own.',
    tag: 'metrics',
    errors: { 403: "The key is not an admin key of the operator's account" },
    responses: { 200: { description: 'Prometheus text exposition', contentType: 'text/plain', schema: Joi.string() } },
  },
};
