import Joi from 'joi';
import type { Cursor } from '@ams/db';
import type { CreateProjectInput, PatchProjectInput } from '@ams/knowledge';
import { PROJECT_SLUG as SLUG } from '@ams/memories';
import { metadata, nonBlank, pagination } from '../../validation/common.schemas';

export { SLUG };

export const slug = Joi.string()
  .max(100)
  .pattern(SLUG)
  .messages({ 'string.pattern.base': '{{#label}} must be lowercase letters, digits and hyphens' });

export type CreateProjectBody = CreateProjectInput;

const fields = {
  name: nonBlank(255),
  description: Joi.string().allow('').max(5_000),
  // A free-form object (languages, frameworks, ...), held to the 10 KB metadata limit.
  stack: metadata,
  repo_url: Joi.string().allow('').max(500),
  metadata,
};

export const createProjectBody = Joi.object<CreateProjectBody>({
  ...fields,
  name: fields.name.required(),
  slug: slug.required(),
  stack: fields.stack.default({}),
  metadata: fields.metadata.default({}),
});

export type PatchProjectBody = PatchProjectInput;

// A slug is fixed: naming it in an update is refused, not silently ignored.
export const patchProjectBody = Joi.object<PatchProjectBody & { slug?: never }>({ ...fields, slug: Joi.any().forbidden() })
  .min(1)
  .messages({ 'object.min': 'Request body must change at least one field' });

export interface ListProjectsQuery {
  limit: number;
  offset: number;
  cursor?: Cursor;
}

export const listProjectsQuery = Joi.object<ListProjectsQuery>(pagination);
