import Joi from 'joi';
import type { SetImportanceInput } from '@ams/memories';

export const importanceBody = Joi.object<SetImportanceInput>({
  importance: Joi.number().min(0).max(1).required(),
  tier: Joi.string().valid('hot', 'warm', 'cold'),
});
