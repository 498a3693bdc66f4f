import Joi from 'joi';
import { json, listOf, RouteDocs, shape, unixTime, uuidOut } from '../../openapi/route-docs';
import { batchBody, createMemoryBody, createMemoryV2Body, listMemoriesQuery, patchMemoryBody, searchBody } from './memories.schemas';

const entityRef = shape({ type: Joi.string(), value: Joi.string(), confidence: Joi.number() });

const memoryFields = {
  object: Joi.string().valid('memory'),
  id: uuidOut,
  content: Joi.string(),
  agent_id: uuidOut.allow(null),
  metadata: json,
  entities: Joi.array().items(entityRef),
  memory_type: Joi.string(),
  importance: Joi.number(),
  tier: Joi.string(),
  archived: Joi.boolean(),
  created_at: unixTime.description('Unix seconds'),
  updated_at: unixTime.description('Unix seconds'),
  // Beyond the spec.
  version: Joi.number().integer().description('How many versions the memory has had (GET /v1/memories/{id}/history)'),
  expires_at: unixTime.allow(null).optional().description('Unix seconds when reads stop returning it; null: never. List items and search results carry it when set'),
};

/** Beyond the spec (docs/api.md, "Time-aware recall", "Re-tiering"): on the full memory always, on summaries when set. */
const timeAwareFields = {
  valid_from: unixTime.allow(null).optional().description('Unix seconds: when the memory became true (null: since it was recorded)'),
  valid_until: unixTime.allow(null).optional().description('Unix seconds: when it stopped being true (null: still true); set by a supersede'),
  supersedes: uuidOut.allow(null).optional().description('The memory this one replaced'),
  superseded_by: uuidOut.allow(null).optional().description('The memory that replaced this one'),
  tier_pinned: Joi.boolean().optional().description('The tier was set by a user: re-tiering never moves it'),
};

export const memorySummary = shape({ ...memoryFields, ...timeAwareFields });
export const memory = shape({
  ...memoryFields,
  ...timeAwareFields,
  visibility: Joi.string().valid('private', 'confidential'),
  session_id: uuidOut.allow(null),
  project_id: uuidOut.allow(null),
  is_duplicate: Joi.boolean().optional(),
});

const memoryExample = {
  object: 'memory',
  id: '0b7f6f6e-3c1a-4d3e-9a8e-2f1d7c6b5a40',
  content: 'The user prefers dark mode in every editor.',
  agent_id: '5d2c1b0a-9e8f-4a7b-8c6d-5e4f3a2b1c0d',
  metadata: { source: 'chat' },
  entities: [],
  memory_type: 'preference',
  visibility: 'private',
  importance: 0.5,
  tier: 'hot',
  archived: false,
  session_id: null,
  project_id: null,
  created_at: 1795000000,
  updated_at: 1795000000,
  version: 1,
  expires_at: null,
};

/** With `debug`: the mode's own members (semantic, keyword, or rrf/ranks/scores), plus each factor. */
const byLeg = (what: string) =>
  Joi.object({ semantic: Joi.number(), keyword: Joi.number(), graph: Joi.number() }).optional().description(`hybrid: each leg's ${what}, for the legs that matched`);
const scoreBreakdown = shape({
  mode: Joi.string(),
  semantic: Joi.number().optional().description('semantic: the vector similarity'),
  keyword: Joi.number().optional().description('keyword: the keyword score'),
  rrf: Joi.number().optional().description('hybrid: the fused score (reciprocal rank fusion)'),
  ranks: byLeg('rank (1: first)'),
  scores: byLeg('own score'),
  base_score: Joi.number().optional().description('The score before recency weighting (with recency_half_life)'),
  factors: shape({
    vector: Joi.number().allow(null),
    keyword: Joi.number().allow(null),
    graph: Joi.number().allow(null),
    recency: Joi.number().allow(null).description('The multiplier 2^(−age / recency_half_life); null without recency_half_life'),
    importance: Joi.number().description("The memory's importance (shown; it does not weigh the score)"),
  }),
});

const embeddingStatus = shape({
  id: uuidOut,
  status: Joi.string().valid('pending', 'processing', 'ready', 'failed'),
  created_at: unixTime,
  updated_at: unixTime,
  error: Joi.string().allow(null),
  duplicate_of: uuidOut.allow(null),
});

export const memoriesOpenApi: RouteDocs = {
  'POST /v1/memories': {
    summary: 'Store a memory',
    description: 'Embeds the content in the request. With `deduplicate`, a near-identical memory of the agent is returned instead (200, `is_duplicate: true`).',
    body: createMemoryBody,
    example: { content: 'The user prefers dark mode in every editor.', agent_id: 'assistant', metadata: { source: 'chat' } },
    errors: { 404: 'The session, project or superseded memory named does not exist', 409: 'The memory named in `supersedes` is already superseded' },
    responses: {
      201: { description: 'Stored', schema: memory, example: memoryExample },
      200: { description: 'A duplicate of an existing memory (deduplicate: true): that memory', schema: memory },
    },
  },
  'POST /v1/memories/batch': {
    summary: 'Store up to 100 memories at once',
    body: batchBody,
    responses: {
      200: {
        description: 'One result per input, in order; failures do not stop the others',
        schema: shape({ results: Joi.array().items(json) }),
      },
    },
  },
  'POST /v1/memories/search': {
    summary: 'Search memories (semantic, keyword or hybrid)',
    description:
      'Only what is true now, unless `as_of` (what had been recorded by then and was true then) or `include_superseded`. `recency_half_life` weighs each score by 2^(−age / half-life).',
    body: searchBody,
    example: { query: 'editor preferences', search_mode: 'hybrid', limit: 5 },
    responses: {
      200: {
        description: 'Results, best first',
        schema: shape({
          object: Joi.string().valid('search_results'),
          query: Joi.string(),
          data: Joi.array().items(shape({ memory: memorySummary, score: Joi.number(), score_breakdown: scoreBreakdown.optional() })),
          meta: shape({
            recalled_count: Joi.number().integer(),
            total_evaluated: Joi.number().integer(),
            threshold: Joi.number(),
            top_scores: Joi.array().items(Joi.number()),
          }),
        }),
      },
    },
  },
  'GET /v1/memories': {
    summary: 'List memories, newest first',
    query: listMemoriesQuery,
    responses: { 200: { description: 'A page of memories', schema: listOf(memorySummary, true) } },
  },
  'GET /v1/memories/:id': { summary: 'Get a memory', responses: { 200: { description: 'The memory', schema: memory, example: memoryExample } } },
  'PATCH /v1/memories/:id': {
    summary: 'Update a memory',
    body: patchMemoryBody,
    responses: { 200: { description: 'The updated memory', schema: memory } },
  },
  'DELETE /v1/memories/:id': { summary: 'Delete a memory (restorable)', responses: { 204: { description: 'Deleted' } } },
  'POST /v1/memories/:id/restore': {
    summary: 'Undelete a memory',
    responses: { 200: { description: 'The restored memory', schema: memory } },
  },
  'POST /v2/memories': {
    summary: 'Store a memory, embedding it asynchronously',
    body: createMemoryV2Body,
    errors: { 404: 'The session, project or superseded memory named does not exist', 409: 'The memory named in `supersedes` is already superseded' },
    responses: {
      202: {
        description: 'Stored; the embedding is pending (or ready when no queue could take it)',
        schema: shape({ id: uuidOut, status: Joi.string(), estimated_completion_seconds: Joi.number().allow(null) }),
      },
    },
  },
  'GET /v2/memories/:id/status': {
    summary: "A memory's embedding status",
    responses: { 200: { description: 'The status', schema: embeddingStatus } },
  },
  'POST /v2/memories/:id/retry': {
    summary: 'Start a failed embedding over',
    errors: { 409: 'The embedding is not `failed`' },
    responses: { 200: { description: 'The status, pending again', schema: embeddingStatus } },
  },
};
