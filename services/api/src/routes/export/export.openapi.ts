import Joi from 'joi';
import { RouteDocs } from '../../openapi/route-docs';
import { exportQuery } from './export.schemas';

export const exportOpenApi: RouteDocs = {
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
};
