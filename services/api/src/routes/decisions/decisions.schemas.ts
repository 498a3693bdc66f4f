import Joi from 'joi';
import type { Cursor, DecisionStatus } from '@ams/db';
import { metadata, nonBlank, pagination, tags, uuid } from '../../validation/common.schemas';
import { agentRef } from '../memories/memories.schemas';
import { slug } from '../projects/projects.schemas';
import type { CreateDecisionInput, PatchDecisionInput, SupersedeInput } from '../../services/decisions.service';

export const DECISION_STATUSES = ['active', 'superseded', 'reverted', 'experimental'] as const;

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
  limit: number;
  offset: number;
  cursor?: Cursor;
}

export const listDecisionsQuery = Joi.object<ListDecisionsQuery>({
  ...pagination,
  project_slug: slug,
  status: Joi.string().valid(...DECISION_STATUSES),
  tag: Joi.string().max(100),
});

export interface CheckDecisionsBody {
  query: string;
  project_slug?: string;
  limit: number;
}

export const checkDecisionsBody = Joi.object<CheckDecisionsBody>({
  query: nonBlank(10_000).required(),
  project_slug: slug,
  limit: Joi.number().integer().min(1).max(100).default(5),
});

export type SupersedeBody = SupersedeInput;

export const supersedeBody = Joi.object<SupersedeBody>({
  title: text.title.required(),
  rationale: text.rationale.required(),
  alternatives: text.alternatives,
  tags,
  metadata,
  agent_id: agentRef,
  session_id: uuid,
  project_slug: slug,
});
