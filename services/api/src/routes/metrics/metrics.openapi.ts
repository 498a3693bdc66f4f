import Joi from 'joi';
import { RouteDocs } from '../../openapi/route-docs';

export const metricsOpenApi: RouteDocs = {
  'GET /metrics': {
    summary: "Prometheus metrics of this API process (admin key)",
    tag: 'metrics',
    responses: { 200: { description: 'Prometheus text exposition', contentType: 'text/plain', schema: Joi.string() } },
  },
};
