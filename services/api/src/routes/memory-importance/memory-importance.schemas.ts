import Joi from 'joi';
import type { Tier } from '@ams/db';

export const importanceBody = Joi.object<{ importance: number; tier?: Tier }>({
  importance: Joi.number().min(0).max(1).required(),
  tier: Joi.string().valid('hot', 'warm', 'cold'),
});
