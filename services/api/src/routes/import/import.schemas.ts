import Joi from 'joi';
import type { ImportOptions } from '@ams/portability';

export type ImportQuery = ImportOptions;

export const importQuery = Joi.object<ImportQuery>({
  on_conflict: Joi.string().valid('skip', 'overwrite').default('skip'),
  auto_extract_entities: Joi.boolean(),
}).options({ stripUnknown: true });
