import Joi from 'joi';
import { nonBlank, unitInterval } from '../../validation/common.schemas';
import { agentRef } from '../memories/memories.schemas';

export interface BuildContextBody {
  query: string;
  agent_id?: string;
  limit: number;
  threshold: number;
  max_tokens?: number;
}

export const buildContextBody = Joi.object<BuildContextBody>({
  query: nonBlank(5_000).required(),
  agent_id: agentRef,
  limit: Joi.number().integer().min(1).max(50).default(10),
  threshold: unitInterval().default(0.5),
  max_tokens: Joi.number().integer().min(1).max(1_000_000),
});
