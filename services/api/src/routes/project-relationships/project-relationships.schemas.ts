import Joi from 'joi';
import type { ImpactAnalysisBody, RelationshipBody } from '@ams/knowledge';
import { metadata, nonBlank } from '../../validation/common.schemas';
import { slug } from '../projects/projects.schemas';

export type { ImpactAnalysisBody, RelationshipBody };

/** relationship_type is free text (depends_on, api_consumer, shares_schema, forked_from, ...). */
export const relationshipBody = Joi.object<RelationshipBody>({
  target_project: slug.min(1).required(),
  relationship_type: Joi.string()
    .trim()
    .min(1)
    .max(100)
    .pattern(/^[A-Za-z0-9_:.-]+$/)
    .required()
    .messages({ 'string.pattern.base': '{{#label}} must be letters, digits, and _ : . -' }),
  metadata: metadata.default({}),
});

export const impactAnalysisBody = Joi.object<ImpactAnalysisBody>({
  project: slug.min(1).required(),
  change_description: nonBlank(5_000).required(),
});

export const sharedPatternsQuery = Joi.object<{ a: string; b: string }>({
  a: slug.min(1).required(),
  b: slug.min(1).required(),
});
