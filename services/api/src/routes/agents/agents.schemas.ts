import Joi from 'joi';
import type { Cursor } from '@ams/db';
import { metadata, nonBlank, pagination } from '../../validation/common.schemas';
import type { CreateAgentInput, PatchAgentInput } from '../../services/agents.service';

export type CreateAgentBody = CreateAgentInput;

export const createAgentBody = Joi.object<CreateAgentBody>({
  name: nonBlank(255).required(),
  description: Joi.string().allow('').max(1_000),
  metadata: metadata.default({}),
});

export type PatchAgentBody = PatchAgentInput;

export const patchAgentBody = Joi.object<PatchAgentBody>({
  name: nonBlank(255),
  description: Joi.string().allow('').max(1_000),
  metadata,
})
  .min(1)
  .messages({ 'object.min': 'Request body must change at least one field' });

export interface ListAgentsQuery {
  limit: number;
  offset: number;
  cursor?: Cursor;
}

export const listAgentsQuery = Joi.object<ListAgentsQuery>(pagination);
