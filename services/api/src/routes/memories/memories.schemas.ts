import Joi from 'joi';
import type { MetadataCondition } from '@ams/db';
import {
  BatchInput,
  CreateMemoryInput,
  CreateMemoryV2Input,
  EMBEDDING_STATUSES,
  ListMemoriesInput,
  MEMORY_DEFAULTS,
  MEMORY_TYPES,
  PatchMemoryInput,
  PROJECT_SLUG,
  SEARCH_MODES,
  SEARCH_SCOPES,
  SearchInput,
  TIERS,
  VISIBILITIES,
} from '@ams/memories';
import { expiresAt, metadata, nonBlank, pagination, ttlSeconds, unitInterval, uuid, withExpiry } from '../../validation/common.schemas';
import { instant, pastInstant } from '../../validation/instant.schema';

const CONTENT_MAX = 50_000;

/** agent_id on input: a UUID or a name (docs/api.md, "Agents by id or name"). */
export const agentRef = Joi.string().trim().min(1).max(255);

export type CreateMemoryBody = CreateMemoryInput;

const createMemoryFields = {
  content: nonBlank(CONTENT_MAX).required(),
  agent_id: agentRef,
  metadata: metadata.default({}),
  memory_type: Joi.string().valid(...MEMORY_TYPES),
  session_id: uuid,
  // A slug: an unregistered one creates the project (docs/clients.md, "Names instead of ids").
  project: Joi.string()
    .max(100)
    .pattern(PROJECT_SLUG)
    .messages({ 'string.pattern.base': '{{#label}} must be a project slug: lowercase letters, digits and hyphens' }),
  project_id: uuid,
  importance: unitInterval().default(MEMORY_DEFAULTS.importance),
  tier: Joi.string().valid(...TIERS),
  visibility: Joi.string().valid(...VISIBILITIES).default(MEMORY_DEFAULTS.visibility),
  deduplicate: Joi.boolean().default(false),
  dedup_threshold: Joi.number().min(0.5).max(1).default(0.95),
  auto_extract_entities: Joi.boolean().allow(null).default(null),
  // Beyond the spec: one or the other; neither: the agent's default TTL for the type, if any.
  ttl_seconds: ttlSeconds,
  expires_at: expiresAt,
  // docs/api.md, "Time-aware recall".
  valid_from: instant(),
  valid_until: instant(),
  supersedes: uuid,
};

/** valid_from must precede valid_until when a body gives both (a PATCH also checks against what the memory keeps). */
const validityInOrder = (body: { valid_from?: Date; valid_until?: Date }, helpers: Joi.CustomHelpers) =>
  body.valid_from && body.valid_until && body.valid_from >= body.valid_until
    ? helpers.message({ custom: `valid_from (${body.valid_from.toISOString()}) must be earlier than valid_until (${body.valid_until.toISOString()})` })
    : body;

export const createMemoryBody = withExpiry(Joi.object<CreateMemoryBody>(createMemoryFields).custom(validityInOrder));

export type CreateMemoryV2Body = CreateMemoryV2Input;

/** v2: every v1 field, plus a one-shot HTTPS URL notified when the embedding is ready. */
export const createMemoryV2Body = withExpiry(
  Joi.object<CreateMemoryV2Body>({
    ...createMemoryFields,
    webhook_url: Joi.string()
      .max(2_048)
      .uri({ scheme: ['https'] })
      .messages({ 'string.uriCustomScheme': '{{#label}} must be an https URL' }),
  }).custom(validityInOrder),
);

export type BatchBody = BatchInput;

export const batchBody = Joi.object<BatchBody & { agent_id?: string; session_id?: string }>({
  memories: Joi.array()
    .items(
      withExpiry(
        Joi.object({
          content: nonBlank(CONTENT_MAX).required(),
          agent_id: agentRef,
          metadata: metadata.max(50).default({}).messages({ 'object.max': '{{#label}} must have at most 50 keys' }),
          client_id: Joi.string().min(1).max(255),
          session_id: uuid,
          ttl_seconds: ttlSeconds,
          expires_at: expiresAt,
        }),
      ),
    )
    .min(1)
    .max(100)
    .required(),
  parallel_embeddings: Joi.boolean().default(true),
  // docs/clients.md, "Aliases": defaults for items that carry none.
  agent_id: agentRef,
  session_id: uuid,
}).custom(({ agent_id, session_id, ...body }: BatchBody & { agent_id?: string; session_id?: string }) => ({
  ...body,
  memories: body.memories.map((m) => ({ ...m, agent_id: m.agent_id ?? agent_id, session_id: m.session_id ?? session_id })),
}));

export type PatchMemoryBody = PatchMemoryInput;

export const patchMemoryBody = withExpiry(
  Joi.object<PatchMemoryBody & { ttl_seconds?: number }>({
    content: nonBlank(CONTENT_MAX),
    metadata,
    importance: unitInterval(),
    tier: Joi.string().valid(...TIERS),
    memory_type: Joi.string().valid(...MEMORY_TYPES),
    visibility: Joi.string().valid(...VISIBILITIES),
    archived: Joi.boolean(),
    // Renewing (or ending) an expiry: before the sweep, the memory stays.
    ttl_seconds: ttlSeconds,
    expires_at: expiresAt,
    valid_from: instant(),
    valid_until: instant(),
    tier_pinned: Joi.boolean(),
  })
    .min(1)
    .custom(validityInOrder)
    .messages({ 'object.min': 'Request body must change at least one field' }),
);

export type ListMemoriesQuery = ListMemoriesInput;

export const listMemoriesQuery = Joi.object<ListMemoriesQuery>({
  ...pagination,
  agent_id: agentRef,
  memory_type: Joi.string().valid(...MEMORY_TYPES),
  // Beyond the spec, for the console: the search filters, plus embedding status (failed embeddings).
  tier: Joi.string().valid(...TIERS),
  session_id: uuid,
  project_id: uuid,
  archived: Joi.boolean(),
  visibility: Joi.string().valid(...VISIBILITIES),
  embedding_status: Joi.string().valid(...EMBEDDING_STATUSES),
  // Expired memories are left out unless asked for (audits); expires_before: what expires soon.
  include_expired: Joi.boolean(),
  expires_before: instant().description('Unix seconds or ISO 8601: only memories expiring before it'),
});

/** $in/$nin lists beyond this are refused (422): a filter is not a bulk lookup. */
const FILTER_MAX_VALUES = 1_000;
/** Of those, objects and arrays (each a containment test of every row, where a scalar is one hashed lookup). */
const FILTER_MAX_NESTED_VALUES = 100;
/** The whole metadata_filter's JSON, in bytes: room for 1,000 UUIDs, or a value as large as a metadata object may hold. */
const FILTER_MAX_BYTES = 65_536;
/** Keys (conditions on the metadata) in one filter. */
const FILTER_MAX_KEYS = 20;

const OPERATORS = ['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$exists'] as const;
type Operator = (typeof OPERATORS)[number];

/**
 * metadata_filter: `{key: value}` is equality (JSON containment); `{key: {$op: value}}` uses the
 * operators of docs/api.md, "Search". Compiled here, at the edge, into conditions the repository turns into SQL.
 */
export const metadataFilter = Joi.object()
  .pattern(
    Joi.string().min(1).max(255),
    Joi.any().custom((value, helpers) => {
      const isOperatorObject =
        value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).some((k) => k.startsWith('$'));
      if (!isOperatorObject) return value;
      for (const [op, operand] of Object.entries(value as Record<string, unknown>)) {
        if (!(OPERATORS as readonly string[]).includes(op)) return helpers.message({ custom: `{{#label}} uses unknown operator ${op}` });
        if ((op === '$in' || op === '$nin') && !Array.isArray(operand))
          return helpers.message({ custom: `{{#label}}.${op} must be an array` });
        if ((op === '$in' || op === '$nin') && (operand as unknown[]).length > FILTER_MAX_VALUES)
          return helpers.message({ custom: `{{#label}}.${op} must have at most ${FILTER_MAX_VALUES} values` });
        if ((op === '$in' || op === '$nin') && (operand as unknown[]).filter((v) => v !== null && typeof v === 'object').length > FILTER_MAX_NESTED_VALUES)
          return helpers.message({ custom: `{{#label}}.${op} must have at most ${FILTER_MAX_NESTED_VALUES} objects or arrays` });
        if (['$gt', '$gte', '$lt', '$lte'].includes(op) && typeof operand !== 'number' && typeof operand !== 'string')
          return helpers.message({ custom: `{{#label}}.${op} must be a number or a string` });
        if (op === '$exists' && typeof operand !== 'boolean')
          return helpers.message({ custom: `{{#label}}.$exists must be a boolean` });
      }
      return value;
    }),
  )
  .max(FILTER_MAX_KEYS)
  .custom((filter: Record<string, unknown>, helpers) =>
    Buffer.byteLength(JSON.stringify(filter)) > FILTER_MAX_BYTES
      ? helpers.message({ custom: `{{#label}} must be at most ${FILTER_MAX_BYTES} bytes of JSON` })
      : filter,
  )
  .messages({ 'object.max': `{{#label}} must have at most ${FILTER_MAX_KEYS} keys` })
  .description(
    `At most ${FILTER_MAX_KEYS} keys and ${FILTER_MAX_BYTES} bytes of JSON; $in/$nin at most ${FILTER_MAX_VALUES} values, of which at most ${FILTER_MAX_NESTED_VALUES} objects or arrays`,
  );

export function compileMetadataFilter(filter: Record<string, unknown> | undefined): MetadataCondition[] {
  if (!filter) return [];
  return Object.entries(filter).flatMap(([key, value]): MetadataCondition[] => {
    const isOperatorObject =
      value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).some((k) => k.startsWith('$'));
    if (!isOperatorObject) return [{ key, op: '$eq', value }];
    return Object.entries(value as Record<Operator, unknown>).map(([op, operand]) => ({ key, op, value: operand }) as MetadataCondition);
  });
}

/** The search input before its metadata_filter is compiled (compileMetadataFilter). */
export type SearchBody = Omit<SearchInput, 'metadata_filter'> & { metadata_filter?: Record<string, unknown> };


/** docs/api.md, "Time-aware recall": the search and context members (both answer "what was true then"). */
export const timeAwareSearchFields = {
  as_of: pastInstant(),
  include_superseded: Joi.boolean().default(false),
  // At least a second; at most a century (DATE_RANGE_YEARS).
  recency_half_life: Joi.number().min(1).max(100 * 365 * 86_400),
};

export const searchBody = Joi.object<SearchBody & { threshold?: number }>({
  query: nonBlank(10_000).required(),
  agent_id: agentRef,
  search_mode: Joi.string().valid(...SEARCH_MODES).default('semantic'),
  limit: Joi.number().integer().min(1).max(100).default(10),
  min_score: Joi.number().min(0).max(1),
  metadata_filter: metadataFilter,
  tier: Joi.string().valid(...TIERS),
  min_importance: unitInterval(),
  include_confidential: Joi.boolean().default(false),
  include_archived: Joi.boolean().default(false),
  compress: Joi.boolean().default(false),
  max_context_tokens: Joi.number().integer().min(1).max(100_000),
  debug: Joi.boolean().default(false),
  // docs/clients.md, "Aliases": `threshold` is min_score's alias (min_score wins when both are sent).
  threshold: Joi.number().min(0).max(1),
  project: Joi.string().min(1).max(100),
  session_id: Joi.string().min(1).max(255),
  scope: Joi.string().valid(...SEARCH_SCOPES),
  include_expired: Joi.boolean().default(false),
  ...timeAwareSearchFields,
}).custom(({ threshold, ...body }: SearchBody & { threshold?: number }) => ({ ...body, min_score: body.min_score ?? threshold ?? 0 }));

/** Search parameters some clients put in the query string of the POST (the body wins). */
export const SEARCH_QUERY_PARAMS = ['scope', 'session_id'] as const;
