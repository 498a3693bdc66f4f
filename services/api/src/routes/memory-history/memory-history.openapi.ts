import { MEMORY_CHANGES, MEMORY_VERSION_FIELDS } from '@ams/memories';
import Joi from 'joi';
import { json, listOf, RouteDocs, shape, unixTime, uuidOut } from '../../openapi/route-docs';
import { memory } from '../memories/memories.openapi';
import { historyQuery } from './memory-history.schemas';

const memoryVersion = shape({
  object: Joi.string().valid('memory_version'),
  memory_id: uuidOut,
  version: Joi.number().integer().description('1 for the create; each change adds one'),
  change: Joi.string().valid(...MEMORY_CHANGES).description('What kind of change made this version'),
  changed_fields: Joi.array().items(Joi.string().valid(...MEMORY_VERSION_FIELDS)).description("The memory's members this version changed; `embedding`: its vector"),
  before: json.description('The old values of changed_fields'),
  after: json.description('The new values of changed_fields'),
  actor: shape({
    type: Joi.string().valid('api_key', 'system'),
    key_id: uuidOut.allow(null),
    agent_id: uuidOut.allow(null).description('The agent the key is bound to; null for an account-wide key or the system'),
  }),
  created_at: unixTime.description('Unix seconds'),
});

const versionExample = {
  object: 'memory_version',
  memory_id: '0b7f6f6e-3c1a-4d3e-9a8e-2f1d7c6b5a40',
  version: 2,
  change: 'update',
  changed_fields: ['content'],
  before: { content: 'The user prefers light mode.' },
  after: { content: 'The user prefers dark mode in every editor.' },
  actor: { type: 'api_key', key_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', agent_id: null },
  created_at: 1795000100,
};

export const memoryHistoryOpenApi: RouteDocs = {
  'GET /v1/memories/:id/history': {
    summary: "A memory's versions, newest first",
    description: 'Every change to a memory is a version: who made it, when, which fields changed, before and after. A deleted memory\'s history stays readable.',
    tag: 'memories',
    query: historyQuery,
    responses: { 200: { description: 'A page of versions', schema: listOf(memoryVersion, true), example: { object: 'list', data: [versionExample], has_more: false, next_cursor: null, total_count: 1 } } },
  },
  'POST /v1/memories/:id/history/:version/restore': {
    summary: 'Restore a memory to one of its versions',
    description:
      'Writes the version\'s content, metadata (replaced), type, visibility, importance, tier, archived flag, session and project as a NEW version; the history is never rewritten. A deleted memory comes back; an expiry that has passed is cleared.',
    tag: 'memories',
    responses: { 200: { description: 'The memory as restored', schema: memory } },
  },
};
