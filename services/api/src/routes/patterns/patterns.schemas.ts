import Joi from 'joi';
import type { Cursor } from '@ams/db';
import type { CreatePatternInput, PatchPatternInput } from '@ams/knowledge';
import { metadata, nonBlank, pagination, tags } from '../../validation/common.schemas';
import { slug } from '../projects/projects.schemas';

const SCOPES = ['global', 'project'] as const;

export type CreatePatternBody = CreatePatternInput;

const fields = {
  title: nonBlank(500),
  description: nonBlank(50_000),
  scope: Joi.string().valid(...SCOPES),
  category: Joi.string().allow('').max(100),
  tags,
  example_code: Joi.string().allow('').max(50_000),
  metadata,
};

export const createPatternBody = Joi.object<CreatePatternBody>({
  ...fields,
  title: fields.title.required(),
  description: fields.description.required(),
  scope: fields.scope.default('global'),
  tags: tags.default([]),
  source_project: slug,
  metadata: metadata.default({}),
});

export type PatchPatternBody = PatchPatternInput;

export const patchPatternBody = Joi.object<PatchPatternBody>(fields)
  .min(1)
  .messages({ 'object.min': 'Request body must change at least one field' });

export interface ListPatternsQuery {
  category?: string;
  scope?: string;
  tag?: string;
  limit: number;
  offset: number;
  cursor?: Cursor;
}

export const listPatternsQuery = Joi.object<ListPatternsQuery>({
  ...pagination,
  category: Joi.string().max(100),
  scope: Joi.string().valid(...SCOPES),
  tag: Joi.string().max(100),
});

export interface SearchPatternsBody {
  query: string;
  limit: number;
  category?: string;
  project?: string;
  threshold?: number;
}

const searchFields = {
  query: nonBlank(10_000).required(),
  limit: Joi.number().integer().min(1).max(100).default(10),
  category: Joi.string().max(100),
  project: slug,
  threshold: Joi.number().min(0).max(1),
};

export const searchPatternsBody = Joi.object<SearchPatternsBody>(searchFields);

/** GET /v1/patterns/search (docs/clients.md, "Method and path variants"): the query may be empty (an unranked listing). */
export const searchPatternsQuery = Joi.object<SearchPatternsBody>({
  ...searchFields,
  query: Joi.string().allow('').max(10_000).default(''),
});

export const adoptBody = Joi.object<{ project: string }>({ project: slug.min(1).required() });
export const unadoptQuery = Joi.object<{ project: string }>({ project: slug.min(1).required() });
