import Joi from 'joi';
import { json, RouteDocs, shape } from '../../openapi/route-docs';
import { importQuery } from './import.schemas';

export const importOpenApi: RouteDocs = {
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
};
