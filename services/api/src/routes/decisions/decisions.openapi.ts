import Joi from 'joi';
import { isoTime, json, listOf, RouteDocs, shape, strings, uuidOut } from '../../openapi/route-docs';
import { checkDecisionsBody, createDecisionBody, listDecisionsQuery, patchDecisionBody, supersedeBody } from './decisions.schemas';

export const decision = shape({
  id: uuidOut,
  agent_id: uuidOut.allow(null),
  session_id: uuidOut.allow(null),
  project_slug: Joi.string().allow(null),
  title: Joi.string(),
  rationale: Joi.string().allow(null, ''),
  alternatives: Joi.string().allow(null, ''),
  status: Joi.string(),
  superseded_by: uuidOut.allow(null),
  tags: strings,
  metadata: json,
  created_at: isoTime,
  updated_at: isoTime,
});

export const decisionsOpenApi: RouteDocs = {
  'POST /v1/decisions': {
    summary: 'Record a decision',
    body: createDecisionBody,
    example: { title: 'Use PostgreSQL for storage', rationale: 'pgvector and transactions in one place' },
    errors: { 404: 'The agent, session or project named does not exist' },
    responses: { 201: { description: 'Recorded', schema: decision } },
  },
  'POST /v1/decisions/check': {
    summary: 'Find decisions similar to a proposal',
    body: checkDecisionsBody,
    responses: { 200: { description: 'Similar decisions with scores', schema: shape({ data: Joi.array().items(shape({ decision, score: Joi.number() })) }) } },
  },
  'GET /v1/decisions': { summary: 'List decisions', query: listDecisionsQuery, responses: { 200: { description: 'A page of decisions', schema: listOf(decision) } } },
  'GET /v1/decisions/:id': { summary: 'Get a decision', responses: { 200: { description: 'The decision', schema: decision } } },
  'PATCH /v1/decisions/:id': {
    summary: 'Update a decision',
    body: patchDecisionBody,
    errors: { 409: 'The change conflicts with the decision\'s status' },
    responses: { 200: { description: 'The updated decision', schema: decision } },
  },
  'DELETE /v1/decisions/:id': { summary: 'Delete a decision', responses: { 204: { description: 'Deleted' } } },
  'POST /v1/decisions/:id/supersede': {
    summary: 'Replace a decision with a new one',
    body: supersedeBody,
    errors: { 409: 'The decision is already superseded' },
    responses: { 201: { description: 'The new decision', schema: json } },
  },
};
