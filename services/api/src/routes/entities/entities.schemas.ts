import Joi from 'joi';
import type { Cursor } from '@ams/db';
import { ENTITY_TYPES, normalizeEntityType } from '@ams/text';
import type { CreateEntityInput, PatchEntityInput, LinkInput } from '@ams/entities';
import { metadata, nonBlank, pagination, unitInterval, uuid } from '../../validation/common.schemas';

/** One of the twelve types, case-insensitive; `place` is accepted for `location`. */
const entityType = Joi.string()
  .custom((v: string, helpers) => normalizeEntityType(v) ?? helpers.error('any.only'))
  .messages({ 'any.only': `{{#label}} must be one of ${ENTITY_TYPES.join(', ')} (or place)` });

export type CreateEntityBody = CreateEntityInput;

/** `type` is accepted as an alias of `entity_type`. */
export const createEntityBody = Joi.object({
  name: nonBlank(255).required(),
  entity_type: entityType.required(),
  metadata: metadata.default({}),
}).rename('type', 'entity_type', { override: false, ignoreUndefined: true });

export type PatchEntityBody = PatchEntityInput;

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

export type LinkBody = LinkInput;

export const linkBody = Joi.object<LinkBody>({
  entity_id: uuid.required(),
  memory_id: uuid.required(),
  relationship: Joi.string().trim().min(1).max(100).default('mentioned_in'),
  relevance_score: unitInterval().default(1),
});
