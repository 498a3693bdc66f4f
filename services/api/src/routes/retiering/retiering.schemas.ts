import Joi from 'joi';
import type { Cursor, RetieringRules } from '@ams/db';
import { pagination, uuid } from '../../validation/common.schemas';

export type RetieringSettingsBody = Partial<RetieringRules>;

/** docs/api.md, "Re-tiering": the account's rules; what is left out keeps its value. */
export const retieringSettingsBody = Joi.object<RetieringSettingsBody>({
  enabled: Joi.boolean(),
  promote_recalls: Joi.number().integer().min(1).max(1_000),
  promote_window_days: Joi.number().integer().min(1).max(365),
  demote_after_days: Joi.number().integer().min(1).max(3_650),
})
  .min(1)
  .messages({ 'object.min': 'Request body must change at least one setting' });

export interface TierMovesQuery {
  memory_id?: string;
  limit: number;
  offset: number;
  cursor?: Cursor;
}

export const tierMovesQuery = Joi.object<TierMovesQuery>({ ...pagination, memory_id: uuid });
