import Joi from 'joi';
import type { ExportInput } from '../../services/export/export.service';

export type ExportQuery = ExportInput;

export const exportQuery = Joi.object<ExportQuery>({
  format: Joi.string().valid('ndjson', 'markdown').default('ndjson'),
  /** An agent's id or name. */
  agent: Joi.string().min(1).max(255),
  /** A project's slug. */
  project: Joi.string().min(1).max(100),
  created_after: Joi.date().iso(),
  created_before: Joi.date().iso(),
  include_vectors: Joi.boolean().default(false),
}).options({ stripUnknown: true });
