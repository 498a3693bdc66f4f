import Joi from 'joi';
import type { ExportInput } from '@ams/portability';
import { isoDate } from '../../validation/common.schemas';

export type ExportQuery = ExportInput;

export const exportQuery = Joi.object<ExportQuery>({
  format: Joi.string().valid('ndjson', 'markdown').default('ndjson'),
  /** An agent's id or name. */
  agent: Joi.string().min(1).max(255),
  /** A project's slug. */
  project: Joi.string().min(1).max(100),
  created_after: isoDate(),
  created_before: isoDate(),
  include_vectors: Joi.boolean().default(false),
}).options({ stripUnknown: true });
