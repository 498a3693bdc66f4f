import Joi from 'joi';
import { pagination } from '../../validation/common.schemas';
import type { ListQuery } from '../api-keys/api-keys.schemas';

export type { ListQuery };
export const listGrantsQuery = Joi.object<ListQuery>(pagination);
