import Joi from 'joi';
import type { Cursor, DecisionStatus } from '@ams/db';
import type { CreateDecisionInput, PatchDecisionInput, SupersedeInput } from '@ams/knowledge';
import { metadata, nonBlank, pagination, tags, uuid } from '../../validation/common.schemas';
import { agentRef } from '../memories/memories.schemas';
import { slug } from '../projects/projects.schemas';

const DECISION_STATUSES = ['active', 'superseded', 'reverted', 'experimental'] as const;

export type CreateDecisionBody = CreateDecisionInput;

const text = {
  title: nonBlank(500),
  rationale: nonBlank(50_000),
  alternatives: Joi.string().allow('').max(50_000),
};

export const createDecisionBody = Joi.object<CreateDecisionBody>({
  title: text.title.required(),
  rationale: text.rationale.required(),
  alternatives: text.alternatives,
  // Only these two at creation; superseded and reverted are reached later.
  status: Joi.string().valid('active', 'experimental').default('active'),
  agent_id: agentRef,
  session_id: uuid,
  project_slug: slug,
  tags: tags.default([]),
  metadata: metadata.default({}),
});

export type PatchDecisionBody = PatchDecisionInput;

export const patchDecisionBody = Joi.object<PatchDecisionBody>({
  ...text,
  status: Joi.string().valid(...DECISION_STATUSES),
  tags,
  metadata,
})
  .min(1)
  .messages({ 'object.min': 'Request body must change at least one field' });

export interface ListDecisionsQuery {
  project_slug?: string;
  status?: DecisionStatus;
  tag?: string;
  tags?: string[];
  limit: number;
  offset: number;
  cursor?: Cursor;
}

/** Comma-separated tags (`auth,api`), any of which matches. */
const tagList = Joi.string()
  .max(2_100)
  .custom((raw: string) => raw.split(',').map((t) => t.trim()).filter((t) => t.length > 0))
  .custom((list: string[], helpers) => (list.length > 20 || list.some((t) => t.length > 100) ? helpers.error('tags.list') : list))
  .messages({ 'tags.list': '{{#label}} must be at most 20 comma-separated tags of at most 100 characters' });

// docs/clients.md, "Aliases": `project` is an alias of project_slug, `tags` a comma-separated any-of filter.
export const listDecisionsQuery = Joi.object<ListDecisionsQuery>({
  ...pagination,
  project_slug: slug,
  status: Joi.string().valid(...DECISION_STATUSES),
  tag: Joi.string().max(100),
  tags: tagList,
}).rename('project', 'project_slug', { override: false, ignoreUndefined: true });

export interface CheckDecisionsBody {
  query: string;
  project_slug?: string;
  limit: number;
  threshold?: number;
  include_superseded?: boolean;
}

const checkFields = {
  query: nonBlank(10_000).required(),
  project_slug: slug,
  limit: Joi.number().integer().min(1).max(100).default(5),
  threshold: Joi.number().min(0).max(1),
  include_superseded: Joi.boolean(),
};

export const checkDecisionsBody = Joi.object<CheckDecisionsBody>(checkFields).rename('project', 'project_slug', { override: false, ignoreUndefined: true });

/** GET /v1/decisions/check (docs/clients.md, "Method and path variants"): the same search; superseded decisions only on request. */
export const checkDecisionsQuery = Joi.object<CheckDecisionsBody>({
  ...checkFields,
  include_superseded: Joi.boolean().default(false),
}).rename('project', 'project_slug', { override: false, ignoreUndefined: true });

export type SupersedeBody = SupersedeInput;

export const supersedeBody = Joi.object<SupersedeBody & { status?: never }>({
  // The new decision is always active: asking for another status is refused, not ignored.
  status: Joi.any().forbidden(),
  title: text.title.required(),
  rationale: text.rationale.required(),
  alternatives: text.alternatives,
  tags,
  metadata,
  agent_id: agentRef,
  session_id: uuid,
  project_slug: slug,
});
