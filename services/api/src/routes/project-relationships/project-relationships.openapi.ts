import Joi from 'joi';
import { decision } from '../decisions/decisions.openapi';
import { memorySummary } from '../memories/memories.openapi';
import { pattern } from '../patterns/patterns.openapi';
import { isoTime, json, RouteDocs, shape, uuidOut } from '../../openapi/route-docs';
import { impactAnalysisBody, relationshipBody, sharedPatternsQuery } from './project-relationships.schemas';

const relationship = shape({
  id: uuidOut,
  source_project: Joi.string(),
  target_project: Joi.string(),
  relationship_type: Joi.string(),
  metadata: json,
  created_at: isoTime,
});
const edge = shape({
  id: uuidOut,
  project: shape({ id: uuidOut, slug: Joi.string(), name: Joi.string().allow(null) }),
  relationship_type: Joi.string(),
  direction: Joi.string().valid('outgoing', 'incoming'),
  metadata: json,
  created_at: isoTime,
});
const edges = (what: string) => ({
  summary: what,
  tag: 'projects',
  responses: { 200: { description: 'The edges', schema: shape({ project: Joi.string(), data: Joi.array().items(edge), total: Joi.number().integer() }) } },
});
const scoredDecision = shape({ decision, score: Joi.number() });

export const projectRelationshipsOpenApi: RouteDocs = {
  'POST /v1/projects/:slug/relationships': {
    summary: 'Add a typed edge from this project to `target_project` (unregistered slugs create their projects)',
    tag: 'projects',
    body: relationshipBody,
    example: { target_project: 'billing-api', relationship_type: 'depends_on' },
    responses: {
      201: { description: 'Created', schema: relationship },
      200: { description: 'The same edge existed: it is returned', schema: relationship },
    },
  },
  'GET /v1/projects/:slug/dependencies': edges('Projects this one depends on (outgoing depends_on / api_consumer edges)'),
  'GET /v1/projects/:slug/dependents': edges('Projects depending on this one (incoming depends_on / api_consumer edges)'),
  'GET /v1/projects/:slug/related': edges('Every edge of this project, both directions'),
  'POST /v1/projects/impact-analysis': {
    summary: 'The projects a change to this one may affect, with their decisions and memories nearest to it',
    tag: 'projects',
    body: impactAnalysisBody,
    responses: {
      200: {
        description: 'Affected projects, shared patterns and related decisions',
        schema: shape({
          project: Joi.string(),
          change_description: Joi.string(),
          affected_projects: Joi.array().items(
            shape({
              slug: Joi.string(),
              name: Joi.string().allow(null),
              relationship_type: Joi.string(),
              decisions: Joi.array().items(scoredDecision),
              memories: Joi.array().items(shape({ memory: memorySummary, score: Joi.number() })),
            }),
          ),
          shared_patterns: Joi.array().items(pattern),
          related_decisions: Joi.array().items(scoredDecision),
          total_affected: Joi.number().integer(),
        }),
      },
    },
  },
  'GET /v1/projects/shared-patterns': {
    summary: 'Patterns adopted by both projects',
    tag: 'projects',
    query: sharedPatternsQuery,
    responses: {
      200: {
        description: 'The shared patterns',
        schema: shape({ data: Joi.array().items(pattern), project_a: Joi.string(), project_b: Joi.string(), total: Joi.number().integer() }),
      },
    },
  },
};
