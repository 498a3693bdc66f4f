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
  // Beyond the spec (issue 34).
  version: Joi.number().integer().optional().description('How many versions the memory has had (GET /v1/memories/{id}/history)'),
  expires_at: unixTime.allow(null).optional().description('Unix seconds when reads stop returning it; null: never'),
};

export const memorySummary = shape(memoryFields);
export const memory = shape({
  ...memoryFields,
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
};

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
    errors: { 404: 'The session or project named does not exist' },
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
    body: searchBody,
    example: { query: 'editor preferences', search_mode: 'hybrid', limit: 5 },
    responses: {
      200: {
        description: 'Results, best first',
        schema: shape({
          object: Joi.string().valid('search_results'),
          query: Joi.string(),
          data: Joi.array().items(shape({ memory: memorySummary, score: Joi.number() })),
          meta: json,
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
