import Joi from 'joi';
import type { Cursor } from '@ams/db';
import type { CreateSessionInput, EndSessionInput } from '@ams/knowledge';
import { metadata, pagination } from '../../validation/common.schemas';
import { agentRef } from '../memories/memories.schemas';

export type CreateSessionBody = CreateSessionInput;

const sessionFields = {
  agent_id: agentRef,
  external_id: Joi.string().min(1).max(255),
  project: Joi.string().min(1).max(255),
  title: Joi.string().allow('').max(500),
  metadata: metadata.default({}),
};

export const createSessionBody = Joi.object<CreateSessionBody>(sessionFields);

export const getOrCreateSessionBody = Joi.object<CreateSessionBody & { external_id: string }>({
  ...sessionFields,
  external_id: sessionFields.external_id.required(),
});

export interface ListSessionsQuery {
  agent_id?: string;
  project?: string;
  status?: 'active' | 'ended';
  limit: number;
  offset: number;
  cursor?: Cursor;
}

export const listSessionsQuery = Joi.object<ListSessionsQuery>({
  ...pagination,
  agent_id: agentRef,
  project: Joi.string().min(1).max(255),
  status: Joi.string().valid('active', 'ended'),
});

export const getSessionQuery = Joi.object<{ include_memories: boolean }>({ include_memories: Joi.boolean().default(false) });

export type EndSessionBody = EndSessionInput;

export const endSessionBody = Joi.object<EndSessionBody>({ summary: Joi.string().allow('').max(50_000), metadata });

export const deleteSessionQuery = Joi.object<{ cascade_memories: boolean }>({ cascade_memories: Joi.boolean().default(false) });
