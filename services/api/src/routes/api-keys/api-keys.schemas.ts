import Joi from 'joi';
import { SCOPES, Scope } from '@ams/accounts';
import type { Cursor } from '@ams/db';
import { isoDate, pagination, uuid } from '../../validation/common.schemas';

export interface CreateApiKeyBody {
  name: string;
  scopes: Scope[];
  expires_at?: Date;
  agent_id?: string;
}

export const createApiKeyBody = Joi.object<CreateApiKeyBody>({
  name: Joi.string().trim().min(1).max(255).required(),
  scopes: Joi.array()
    .items(Joi.string().valid(...SCOPES))
    .min(1)
    .unique()
    .required(),
  expires_at: isoDate().greater('now').messages({ 'date.greater': 'expires_at must be in the future' }),
  agent_id: uuid,
});

export interface ListQuery {
  limit: number;
  offset: number;
  cursor?: Cursor;
}

export const listApiKeysQuery = Joi.object<ListQuery>(pagination);
