import Joi from 'joi';
import type { Cursor } from '@ams/db';
import { ENTITY_TYPES, normalizeEntityType } from '@ams/text';
import { metadata, nonBlank, pagination, unitInterval, uuid } from '../../validation/common.schemas';

/** One of the twelve types, case-insensitive; `place` is accepted for `location`. */
const entityType = Joi.string()
  .custom((v: string, helpers) => normalizeEntityType(v) ?? helpers.error('any.only'))
  .messages({ 'any.only': `{{#label}} must be one of ${ENTITY_TYPES.join(', ')} (or place)` });

export interface CreateEntityBody {
  name: string;
  entity_type: string;
  metadata: Record<string, unknown>;
}

/** `type` is accepted as an alias of `entity_type`. */
export const createEntityBody = Joi.object({
  name: nonBlank(255).required(),
  entity_type: entityType.required(),
  metadata: metadata.default({}),
}).rename('type', 'entity_type', { override: false, ignoreUndefined: true });

export type PatchEntityBody = Partial<CreateEntityBody>;

export const patchEntityBody = Joi.object({
  name: nonBlank(255),
  entity_type: entityType,
  metadata,
})
  .rename('type', 'entity_type', { override: false, ignoreUndefined: true })
  .min(1)
  .messages({ 'object.min': 'Request body must change at least one field' });

export interface ListEntitiesQuery {
  entity_type?: string;
  limit: number;
  offset: number;
  cursor?: Cursor;
}

export const listEntitiesQuery = Joi.object<ListEntitiesQuery>({ ...pagination, entity_type: entityType });

export interface LinkBody {
  entity_id: string;
  memory_id: string;
  relationship: string;
  relevance_score: number;
}

export const linkBody = Joi.object<LinkBody>({
  entity_id: uuid.required(),
  memory_id: uuid.required(),
  relationship: Joi.string().trim().min(1).max(100).default('mentioned_in'),
  relevance_score: unitInterval().default(1),
});
