import Joi from 'joi';
import { SEARCH_MODES } from '@ams/memories';
import type { BuildContextInput } from '@ams/knowledge';
import { nonBlank, unitInterval, uuid } from '../../validation/common.schemas';
import { agentRef, timeAwareSearchFields } from '../memories/memories.schemas';

const CONTEXT_LIMIT_MAX = 50;

export type BuildContextBody = BuildContextInput;

/**
 * One schema for /v2/context/build and its aliases. `max_memories` is an alias of `limit`,
 * clamped to the spec's 1-50 (limit wins when both are sent).
 */
export const buildContextBody = Joi.object<BuildContextBody & { max_memories?: number }>({
  query: nonBlank(5_000).required(),
  agent_id: agentRef,
  limit: Joi.number().integer().min(1).max(CONTEXT_LIMIT_MAX),
  threshold: unitInterval().default(0.5),
  max_tokens: Joi.number().integer().min(1).max(1_000_000),
  max_memories: Joi.number().integer().min(1).max(10_000),
  project: Joi.string().min(1).max(100),
  search_mode: Joi.string().valid(...SEARCH_MODES).default('semantic'),
  exclude_memory_ids: Joi.array().items(uuid).max(1_000).default([]),
  ai_enhanced: Joi.boolean().default(false),
  ranking_version: Joi.string().max(100),
  ...timeAwareSearchFields,
}).custom(({ max_memories, ...body }: BuildContextBody & { max_memories?: number }) => ({
  ...body,
  limit: body.limit ?? (max_memories === undefined ? 10 : Math.min(max_memories, CONTEXT_LIMIT_MAX)),
}));
