import Joi from 'joi';
import { isoTime, json, listOf, nullableIso, RouteDocs, shape, strings, uuidOut } from '../../openapi/route-docs';
import { createAgentBody, listAgentsQuery, patchAgentBody } from './agents.schemas';

const agent = shape({
  object: Joi.string().valid('agent'),
  id: uuidOut,
  name: Joi.string(),
  description: Joi.string().allow(null),
  config: json,
  metadata: json,
  memory_count: Joi.number().integer(),
  session_count: Joi.number().integer(),
  project_count: Joi.number().integer(),
  last_active_at: nullableIso,
  created_at: isoTime,
  updated_at: isoTime,
});

const count = Joi.number().integer();
const stats = shape({
  object: Joi.string().valid('agent_stats'),
  agent_id: uuidOut,
  total_memories: count,
  memories_this_week: count,
  memories_this_month: count,
  active_sessions: count,
  entity_count: count,
  tier_breakdown: shape({ hot: count, warm: count, cold: count }),
  last_active: isoTime,
  recall_activity: shape({ total_searches: count, avg_score: Joi.number(), avg_results: Joi.number() }),
  search_analytics: shape({ top_queries: strings, avg_response_ms: Joi.number() }),
});

/** The routes for existing clients (routes/compat) answer a name in `{id}` too. */
const BY_NAME = "`{id}` is the agent's id or its name.";

export const agentsOpenApi: RouteDocs = {
  'POST /v1/agents': {
    summary: 'Create an agent',
    body: createAgentBody,
    example: { name: 'assistant', description: 'The IDE assistant' },
    errors: { 409: 'An agent of that name exists' },
    responses: { 201: { description: 'Created', schema: agent } },
  },
  'GET /v1/agents': { summary: 'List agents', query: listAgentsQuery, responses: { 200: { description: 'A page of agents', schema: listOf(agent, true) } } },
  'GET /v1/agents/:id': { summary: 'Get an agent', description: BY_NAME, responses: { 200: { description: 'The agent', schema: agent } } },
  'GET /v1/agents/:id/stats': { summary: "An agent's statistics", description: BY_NAME, responses: { 200: { description: 'Counts and activity', schema: stats } } },
  'PATCH /v1/agents/:id': {
    summary: 'Update an agent',
    description: BY_NAME,
    body: patchAgentBody,
    errors: { 409: 'An agent of that name exists' },
    responses: { 200: { description: 'The updated agent', schema: agent } },
  },
  'DELETE /v1/agents/:id': { summary: 'Delete an agent', description: BY_NAME, responses: { 204: { description: 'Deleted' } } },
};
