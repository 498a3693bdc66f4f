import Joi from 'joi';
import type { LimitOverrides } from '@ams/accounts';

const count = Joi.number().integer().min(0).max(Number.MAX_SAFE_INTEGER).allow(null);
const perPeriod = Joi.number().integer().min(0).max(2_147_483_647).allow(null);

/** Each limit: a whole number ≥ 0 (0: unlimited), or null for the configured default; the weight a number > 0. */
const limitMembers = {
  max_memories: count,
  max_storage_bytes: count,
  requests_per_minute: perPeriod,
  searches_per_day: perPeriod,
  embeddings_per_day: perPeriod,
  fair_share_weight: Joi.number().greater(0).max(1_000_000).allow(null),
};

/** PUT: the account's limits as a whole (an absent one is its default). Unknown members are refused. */
export const putLimitsBody = Joi.object<Partial<LimitOverrides>>(limitMembers);

/** PATCH: the limits to change, at least one. */
export const patchLimitsBody = Joi.object<Partial<LimitOverrides>>(limitMembers).min(1);
