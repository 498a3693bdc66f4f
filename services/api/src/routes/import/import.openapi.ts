import Joi from 'joi';
import { isoTime, json, nullableIso, RouteDocs, shape, uuidOut } from '../../openapi/route-docs';
import { importQuery } from './import.schemas';

const count = Joi.number().integer();
const importJob = shape({
    object: Joi.string().valid('import_job'),
    id: uuidOut,
    status: Joi.string().valid('running', 'completed', 'failed'),
    on_conflict: Joi.string().valid('skip', 'overwrite'),
    lines: count.description('Every line up to this one is settled: stored, skipped or failed as counted, and committed with its records'),
    records: shape({ read: count, stored: count, skipped: count, failed: count }),
    counts: json.description('Per record type: created, updated, skipped, failed'),
    reembedded: count,
    error_count: count,
    errors: Joi.array().items(shape({ line: count, type: Joi.string().optional(), field: Joi.string().optional(), message: Joi.string() })),
    failure: Joi.string().allow(null),
    created_at: isoTime,
    updated_at: isoTime,
    finished_at: nullableIso,
});

export const importOpenApi: RouteDocs = {
  'POST /v1/import': {
    summary: "Import an export's NDJSON (the raw body) as a job: accepted once received, then imported in batches",
    description:
      'Each line is validated as a create validates its body (types, lengths, dates within 100 years of now, no NUL or unpaired surrogates) ' +
      'and memories are prepared as a create prepares them (type classifier, defaults, entity extraction). Records keep their ids: ' +
      'an id (or natural key) the account already holds is skipped and counted, or overwritten with on_conflict=overwrite, so sending ' +
      'the same file twice stores nothing twice. Follow the job at its Location.',
    query: importQuery,
    responses: {
      202: { description: 'The job, running', schema: importJob, headers: { Location: 'The job: /v1/import/jobs/{id}' } },
    },
    errors: { 413: 'The upload is over IMPORT_MAX_BYTES (1 GiB by default): nothing was stored and no job started' },
  },
  'GET /v1/import/jobs/:id': {
    summary: "An import job's progress: lines settled, records read, stored, skipped and failed, and each failed line",
    description:
      'What the job counts was committed with the records it counts, so it is exact at every moment, including after the API stopped mid-import ' +
      '(the job then reads failed once its heartbeat is older than IMPORT_STALE_AFTER_MS; send the same file again to finish).',
    responses: { 200: { description: 'The job', schema: importJob } },
  },
};
