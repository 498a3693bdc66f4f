import Joi from 'joi';
import { MEMORY_TYPES, MetadataCondition, Cursor } from '@ams/db';
import { metadata, nonBlank, pagination, uuid } from '../../validation/common.schemas';

export const CONTENT_MAX = 50_000;
const TIERS = ['hot', 'warm', 'cold'] as const;
const VISIBILITIES = ['private', 'confidential'] as const;
const EMBEDDING_STATUSES = ['pending', 'processing', 'ready', 'failed'] as const;

/** agent_id on input: a UUID or a name (DESIGN §4). */
export const agentRef = Joi.string().trim().min(1).max(255);

export interface CreateMemoryBody {
  content: string;
  agent_id?: string;
  metadata: Record<string, unknown>;
  memory_type?: (typeof MEMORY_TYPES)[number];
  session_id?: string;
  project?: string;
  project_id?: string;
  importance: number;
  tier?: (typeof TIERS)[number];
  visibility: (typeof VISIBILITIES)[number];
  deduplicate: boolean;
  dedup_threshold: number;
  auto_extract_entities: boolean | null;
}

export const createMemoryFields = {
  content: nonBlank(CONTENT_MAX).required(),
  agent_id: agentRef,
  metadata: metadata.default({}),
  memory_type: Joi.string().valid(...MEMORY_TYPES),
  session_id: uuid,
  project: Joi.string().min(1).max(100),
  project_id: uuid,
  importance: Joi.number().min(0).max(1).default(0.5),
  tier: Joi.string().valid(...TIERS),
  visibility: Joi.string().valid(...VISIBILITIES).default('private'),
  deduplicate: Joi.boolean().default(false),
  dedup_threshold: Joi.number().min(0.5).max(1).default(0.95),
  auto_extract_entities: Joi.boolean().allow(null).default(null),
};

export const createMemoryBody = Joi.object<CreateMemoryBody>(createMemoryFields);

export interface CreateMemoryV2Body extends CreateMemoryBody {
  webhook_url?: string;
}

/** v2: every v1 field, plus a one-shot HTTPS URL notified when the embedding is ready. */
export const createMemoryV2Body = Joi.object<CreateMemoryV2Body>({
  ...createMemoryFields,
  webhook_url: Joi.string()
    .max(2_048)
    .uri({ scheme: ['https'] })
    .messages({ 'string.uriCustomScheme': '{{#label}} must be an https URL' }),
});

export interface BatchItem {
  content: string;
  agent_id?: string;
  metadata: Record<string, unknown>;
  client_id?: string;
  session_id?: string;
}

export interface BatchBody {
  memories: BatchItem[];
  parallel_embeddings: boolean;
}

export const batchBody = Joi.object<BatchBody>({
  memories: Joi.array()
    .items(
      Joi.object({
        content: nonBlank(CONTENT_MAX).required(),
        agent_id: agentRef,
        metadata: metadata.max(50).default({}).messages({ 'object.max': '{{#label}} must have at most 50 keys' }),
        client_id: Joi.string().min(1).max(255),
        session_id: uuid,
      }),
    )
    .min(1)
    .max(100)
    .required(),
  parallel_embeddings: Joi.boolean().default(true),
});

export interface PatchMemoryBody {
  content?: string;
  metadata?: Record<string, unknown>;
  importance?: number;
  tier?: (typeof TIERS)[number];
  memory_type?: (typeof MEMORY_TYPES)[number];
  visibility?: (typeof VISIBILITIES)[number];
  archived?: boolean;
}

export const patchMemoryBody = Joi.object<PatchMemoryBody>({
  content: nonBlank(CONTENT_MAX),
  metadata,
  importance: Joi.number().min(0).max(1),
  tier: Joi.string().valid(...TIERS),
  memory_type: Joi.string().valid(...MEMORY_TYPES),
  visibility: Joi.string().valid(...VISIBILITIES),
  archived: Joi.boolean(),
})
  .min(1)
  .messages({ 'object.min': 'Request body must change at least one field' });

export interface ListMemoriesQuery {
  agent_id?: string;
  memory_type?: string;
  tier?: (typeof TIERS)[number];
  session_id?: string;
  project_id?: string;
  archived?: boolean;
  visibility?: (typeof VISIBILITIES)[number];
  embedding_status?: (typeof EMBEDDING_STATUSES)[number];
  limit: number;
  offset: number;
  cursor?: Cursor;
}

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
});

const OPERATORS = ['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$exists'] as const;
type Operator = (typeof OPERATORS)[number];

/**
 * metadata_filter: `{key: value}` is equality (JSON containment); `{key: {$op: value}}` uses the
 * DESIGN operators. Compiled here, at the edge, into conditions the repository turns into SQL.
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
        if (['$gt', '$gte', '$lt', '$lte'].includes(op) && typeof operand !== 'number' && typeof operand !== 'string')
          return helpers.message({ custom: `{{#label}}.${op} must be a number or a string` });
        if (op === '$exists' && typeof operand !== 'boolean')
          return helpers.message({ custom: `{{#label}}.$exists must be a boolean` });
      }
      return value;
    }),
  )
  .max(20);

export function compileMetadataFilter(filter: Record<string, unknown> | undefined): MetadataCondition[] {
  if (!filter) return [];
  return Object.entries(filter).flatMap(([key, value]): MetadataCondition[] => {
    const isOperatorObject =
      value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).some((k) => k.startsWith('$'));
    if (!isOperatorObject) return [{ key, op: '$eq', value }];
    return Object.entries(value as Record<Operator, unknown>).map(([op, operand]) => ({ key, op, value: operand }) as MetadataCondition);
  });
}

export const SEARCH_MODES = ['semantic', 'hybrid', 'keyword'] as const;

export interface SearchBody {
  query: string;
  agent_id?: string;
  search_mode: (typeof SEARCH_MODES)[number];
  limit: number;
  min_score: number;
  metadata_filter?: Record<string, unknown>;
  tier?: (typeof TIERS)[number];
  min_importance?: number;
  include_confidential: boolean;
  include_archived: boolean;
  compress: boolean;
  max_context_tokens?: number;
  debug: boolean;
}

export const searchBody = Joi.object<SearchBody>({
  query: nonBlank(10_000).required(),
  agent_id: agentRef,
  search_mode: Joi.string().valid(...SEARCH_MODES).default('semantic'),
  limit: Joi.number().integer().min(1).max(100).default(10),
  min_score: Joi.number().min(0).max(1).default(0),
  metadata_filter: metadataFilter,
  tier: Joi.string().valid(...TIERS),
  min_importance: Joi.number().min(0).max(1),
  include_confidential: Joi.boolean().default(false),
  include_archived: Joi.boolean().default(false),
  compress: Joi.boolean().default(false),
  max_context_tokens: Joi.number().integer().min(1).max(100_000),
  debug: Joi.boolean().default(false),
});
