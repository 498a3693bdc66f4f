import Joi from 'joi';
import { isoTime, json, listOf, nullableIso, RouteDocs, shape, unixTime, uuidOut } from '../../openapi/route-docs';
import {
  createSessionBody,
  deleteSessionQuery,
  endSessionBody,
  getOrCreateSessionBody,
  getSessionQuery,
  listSessionsQuery,
} from './sessions.schemas';

const sessionFields = {
  id: uuidOut,
  agent_id: uuidOut.allow(null),
  external_id: Joi.string().allow(null),
  project: Joi.string().allow(null),
  status: Joi.string(),
  title: Joi.string().allow(null),
  summary: Joi.string().allow(null),
  metadata: json,
  memory_count: Joi.number().integer(),
  started_at: isoTime,
  ended_at: nullableIso,
  created_at: isoTime,
  updated_at: isoTime,
};
const session = shape(sessionFields);
const withMemories = shape({
  ...sessionFields,
  memories: Joi.array()
    .items(shape({ id: uuidOut, content: Joi.string(), created_at: unixTime }))
    .optional()
    .description('With include_memories'),
});

export const sessionsOpenApi: RouteDocs = {
  'POST /v1/sessions': {
    summary: 'Start a session',
    body: createSessionBody,
    example: { agent_id: 'assistant', title: 'Refactor the billing module' },
    errors: { 404: 'The agent or project named does not exist', 409: 'A session with that external_id exists' },
    responses: { 201: { description: 'Started', schema: session } },
  },
  'POST /v1/sessions/get-or-create': {
    summary: 'Get the session with an external id, or start it',
    body: getOrCreateSessionBody,
    responses: { 200: { description: 'The session', schema: session } },
  },
  'GET /v1/sessions': {
    summary: 'List sessions',
    query: listSessionsQuery,
    errors: { 404: 'The agent named does not exist' },
    responses: { 200: { description: 'A page of sessions', schema: listOf(session) } },
  },
  'GET /v1/sessions/:id': {
    summary: 'Get a session',
    query: getSessionQuery,
    responses: { 200: { description: 'The session, with its memories when asked', schema: withMemories } },
  },
  'POST /v1/sessions/:id/end': {
    summary: 'End a session',
    body: endSessionBody,
    errors: { 409: 'The session has already ended' },
    responses: { 200: { description: 'The ended session', schema: session } },
  },
  'POST /v1/sessions/:id/summarize': {
    summary: "Summarize a session's memories",
    responses: { 200: { description: 'The summary', schema: json } },
  },
  'DELETE /v1/sessions/:id': {
    summary: 'Delete a session (and its memories with cascade_memories)',
    query: deleteSessionQuery,
    responses: { 200: { description: 'What was deleted', schema: json } },
  },
};
