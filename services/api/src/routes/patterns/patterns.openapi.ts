import Joi from 'joi';
import { isoTime, json, listOf, RouteDocs, shape, strings, uuidOut } from '../../openapi/route-docs';
import { adoptBody, createPatternBody, listPatternsQuery, patchPatternBody, searchPatternsBody, unadoptQuery } from './patterns.schemas';

export const pattern = shape({
  id: uuidOut,
  title: Joi.string(),
  description: Joi.string().allow(null, ''),
  scope: Joi.string(),
  category: Joi.string().allow(null),
  tags: strings,
  example_code: Joi.string().allow(null, ''),
  source_project_id: uuidOut.allow(null),
  source_project_slug: Joi.string().allow(null),
  metadata: json,
  adoption_count: Joi.number().integer(),
  created_at: isoTime,
  updated_at: isoTime,
});

export const patternsOpenApi: RouteDocs = {
  'POST /v1/patterns': {
    summary: 'Record a reusable pattern',
    body: createPatternBody,
    example: { title: 'Retry with jitter', description: 'Exponential backoff with full jitter for idempotent calls' },
    errors: { 404: 'The source project does not exist' },
    responses: { 201: { description: 'Recorded', schema: pattern } },
  },
  'POST /v1/patterns/search': {
    summary: 'Search patterns',
    body: searchPatternsBody,
    responses: { 200: { description: 'Patterns with scores', schema: shape({ data: Joi.array().items(shape({ pattern, score: Joi.number() })) }) } },
  },
  'GET /v1/patterns': { summary: 'List patterns', query: listPatternsQuery, responses: { 200: { description: 'A page of patterns', schema: listOf(pattern) } } },
  'GET /v1/patterns/:id': { summary: 'Get a pattern', responses: { 200: { description: 'The pattern', schema: pattern } } },
  'PATCH /v1/patterns/:id': { summary: 'Update a pattern', body: patchPatternBody, responses: { 200: { description: 'The updated pattern', schema: pattern } } },
  'DELETE /v1/patterns/:id': { summary: 'Delete a pattern', responses: { 204: { description: 'Deleted' } } },
  'POST /v1/patterns/:id/adopt': {
    summary: 'Adopt a pattern in a project',
    body: adoptBody,
    responses: { 200: { description: 'The adoption', schema: json } },
  },
  'DELETE /v1/patterns/:id/adopt': {
    summary: 'Stop adopting a pattern in a project',
    query: unadoptQuery,
    responses: { 204: { description: 'No longer adopted' } },
  },
};
