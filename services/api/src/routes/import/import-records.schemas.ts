import Joi from 'joi';
import { EMBEDDING_STATUSES, EVENT_TYPES, MEMORY_CHANGES, MEMORY_TYPES, TIERS, VISIBILITIES } from '@ams/memories';
import { ENTITY_TYPES } from '@ams/text';
import { isoDate, metadata, nonBlank, tags, uuid } from '../../validation/common.schemas';

// The body's lines, validated one by one as the import streams them (apart from the query schema,
// which the import service's own input type types: no cycle between the two).
const timestamp = isoDate();
const optionalText = (max: number) => Joi.string().max(max).allow(null);
const object = Joi.object().unknown(true);
const vector = Joi.array().items(Joi.number()).min(1).max(4096).allow(null);
const times = { created_at: timestamp, updated_at: timestamp };

/**
 * One schema per record type of an export (GET /v1/export writes exactly these fields). Unknown
 * members are ignored, so an export of a newer version still imports; a known member of the
 * wrong type is the line's error.
 */
export const RECORD_SCHEMAS = {
  header: Joi.object({ format: Joi.string().valid('ams-export').required(), version: Joi.number().integer().valid(1).required() }),
  agent: Joi.object({
    id: uuid.required(),
    name: nonBlank(255).required(),
    description: optionalText(10_000),
    config: object,
    metadata,
    last_active_at: timestamp.allow(null),
    ...times,
  }),
  project: Joi.object({
    id: uuid.required(),
    slug: Joi.string().pattern(/^[a-z0-9-]{1,100}$/).required(),
    name: nonBlank(255).required(),
    description: optionalText(10_000),
    stack: Joi.alternatives(object, Joi.array()),
    repo_url: optionalText(2_000),
    metadata,
    ...times,
  }),
  session: Joi.object({
    id: uuid.required(),
    agent_id: uuid.allow(null),
    external_id: optionalText(255),
    project: optionalText(255),
    status: Joi.string().valid('active', 'ended'),
    title: optionalText(500),
    summary: optionalText(100_000),
    summary_generated_at: timestamp.allow(null),
    metadata,
    started_at: timestamp,
    ended_at: timestamp.allow(null),
    ...times,
  }),
  memory: Joi.object({
    id: uuid.required(),
    agent_id: uuid,
    agent: nonBlank(255),
    content: nonBlank(100_000).required(),
    metadata,
    memory_type: Joi.string().valid(...MEMORY_TYPES),
    visibility: Joi.string().valid(...VISIBILITIES),
    importance: Joi.number().min(0).max(1),
    tier: Joi.string().valid(...TIERS),
    tier_explicit: Joi.boolean(),
    archived: Joi.boolean(),
    session_id: uuid.allow(null),
    project_id: uuid.allow(null),
    client_id: optionalText(255),
    embedding_model: optionalText(255),
    embedding_status: Joi.string().valid(...EMBEDDING_STATUSES),
    embedding: vector,
    ...times,
    // When it expires, and how many versions it has had (its memory_version records follow).
    expires_at: timestamp.allow(null),
    version: Joi.number().integer().min(1),
  }).or('agent_id', 'agent'),
  memory_version: Joi.object({
    memory_id: uuid.required(),
    version: Joi.number().integer().min(1).required(),
    change: Joi.string().valid(...MEMORY_CHANGES).required(),
    changed_fields: Joi.array().items(Joi.string().min(1).max(100)).max(100).required(),
    before: Joi.object().unknown(true).default({}),
    state: Joi.object().unknown(true).required(),
    actor_key_id: uuid.allow(null),
    actor_agent_id: uuid.allow(null),
    created_at: timestamp,
  }),
  entity: Joi.object({
    id: uuid.required(),
    name: nonBlank(255).required(),
    entity_type: Joi.string().valid(...ENTITY_TYPES).required(),
    metadata,
    ...times,
  }),
  entity_link: Joi.object({
    entity_id: uuid.required(),
    memory_id: uuid.required(),
    relationship: Joi.string().min(1).max(100),
    relevance_score: Joi.number().min(0).max(1),
    created_at: timestamp,
  }),
  decision: Joi.object({
    id: uuid.required(),
    agent_id: uuid.allow(null),
    session_id: uuid.allow(null),
    project_slug: optionalText(100),
    title: nonBlank(500).required(),
    rationale: nonBlank(50_000).required(),
    alternatives: optionalText(50_000),
    status: Joi.string().valid('active', 'superseded', 'reverted', 'experimental'),
    superseded_by: uuid.allow(null),
    tags,
    metadata,
    embedding_model: optionalText(255),
    embedding: vector,
    ...times,
  }),
  pattern: Joi.object({
    id: uuid.required(),
    title: nonBlank(500).required(),
    description: nonBlank(50_000).required(),
    scope: Joi.string().valid('global', 'project'),
    category: optionalText(100),
    tags,
    example_code: optionalText(100_000),
    source_project_id: uuid.allow(null),
    metadata,
    adoption_count: Joi.number().integer().min(0),
    embedding_model: optionalText(255),
    embedding: vector,
    ...times,
  }),
  pattern_adoption: Joi.object({ pattern_id: uuid.required(), project_id: uuid.required(), created_at: timestamp }),
  webhook: Joi.object({
    id: uuid.required(),
    url: Joi.string().uri({ scheme: ['http', 'https'] }).max(2_000).required(),
    event_types: Joi.array().items(Joi.string().valid(...EVENT_TYPES)).unique(),
    enabled: Joi.boolean(),
    disabled_reason: optionalText(1_000),
    description: optionalText(1_000),
    has_secret: Joi.boolean(),
    ...times,
  }),
} as const;
