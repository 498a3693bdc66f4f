import Joi from 'joi';
import { nonBlank } from '../../validation/common.schemas';
import { agentRef } from '../memories/memories.schemas';
import type { BuildContextInput } from '../../services/context.service';

export type BuildContextBody = BuildContextInput;

export const buildContextBody = Joi.object<BuildContextBody>({
  query: nonBlank(5_000).required(),
  agent_id: agentRef,
  limit: Joi.number().integer().min(1).max(50).default(10),
  threshold: Joi.number().min(0).max(1).default(0.5),
  max_tokens: Joi.number().integer().min(1).max(1_000_000),
});
