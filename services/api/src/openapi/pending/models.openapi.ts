import Joi from 'joi';
import type { Schema } from 'joi';
import { json, RouteDocs, shape } from '../route-docs';

/**
 * PRE-WRITTEN, NOT REGISTERED: the route docs of the `models` branch's additions (GET /v1/export,
 * POST /v1/import, GET /metrics). Their query schemas live in that branch's export.schemas.ts and
 * import.schemas.ts, so they are passed in: on merge, move this beside those routers and add
 * `...modelsOpenApi({ exportQuery, importQuery })` to all-route-docs.ts. Shapes as of models 1a25445.
 */
export const modelsOpenApi = ({ exportQuery, importQuery }: { exportQuery: Schema; importQuery: Schema }): RouteDocs => ({
  'GET /v1/export': {
    summary: "The account's data as NDJSON (one record a line, a header first), or its memories as Markdown",
    query: exportQuery,
    responses: {
      200: {
        description: 'The export, streamed (`Content-Disposition: attachment`); `format=markdown` answers text/markdown instead',
        contentType: 'application/x-ndjson',
        schema: Joi.string(),
        headers: { 'Content-Disposition': 'attachment; filename="memories-<date>.ndjson" (or .md)' },
      },
    },
  },
  'POST /v1/import': {
    summary: "Import an export's NDJSON (the raw body, read line by line); existing ids are skipped or overwritten",
    query: importQuery,
    responses: {
      200: {
        description: 'What each record type did, and the first line errors',
        schema: shape({
          object: Joi.string().valid('import_result'),
          lines: Joi.number().integer(),
          counts: json,
          reembedded: Joi.number().integer(),
          error_count: Joi.number().integer(),
          errors: Joi.array().items(shape({ line: Joi.number().integer(), type: Joi.string().optional(), message: Joi.string() })),
        }),
      },
    },
  },
  'GET /metrics': {
    summary: "Prometheus metrics of this API process (admin key)",
    tag: 'metrics',
    responses: { 200: { description: 'Prometheus text exposition', contentType: 'text/plain', schema: Joi.string() } },
  },
});
