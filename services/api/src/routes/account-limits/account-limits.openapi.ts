import Joi from 'joi';
import { nullableIso, RouteDocs, shape, uuidOut } from '../../openapi/route-docs';
import { patchLimitsBody, putLimitsBody } from './account-limits.schemas';

const limitValues = {
  max_memories: Joi.number().integer(),
  max_storage_bytes: Joi.number().integer(),
  requests_per_minute: Joi.number().integer(),
  searches_per_day: Joi.number().integer(),
  embeddings_per_day: Joi.number().integer(),
  fair_share_weight: Joi.number(),
};
const nullable = Object.fromEntries(Object.entries(limitValues).map(([k, v]) => [k, v.allow(null)]));

const accountLimits = shape({
  object: Joi.string().valid('account_limits'),
  account_id: uuidOut,
  ...limitValues,
  overrides: shape(nullable),
  defaults: shape(limitValues),
  updated_at: nullableIso,
});

const OPERATOR =
  "Only an admin key of the operator's account (the oldest, whose key the first start printed) may use it. " +
  'Each limit is a whole number ≥ 0 (0: unlimited) or null (the configured default); `fair_share_weight` is a number > 0. ' +
  'The answer holds the limits in force, the account\'s own `overrides` and the `defaults`. Unknown members are refused (422).';
const errors = { 403: "The key is not an admin key of the operator's account" } as const;
const example = { max_memories: 10000, max_storage_bytes: 104857600, requests_per_minute: 600, searches_per_day: 5000, embeddings_per_day: 20000, fair_share_weight: 2 };

export const accountLimitsOpenApi: RouteDocs = {
  'GET /v1/admin/accounts/:id/limits': {
    summary: "An account's limits",
    tag: 'admin',
    description: OPERATOR,
    responses: { 200: { description: 'The limits in force, the overrides and the defaults', schema: accountLimits } },
    errors,
  },
  'PUT /v1/admin/accounts/:id/limits': {
    summary: "Set an account's limits (all of them: an absent one returns to its default)",
    tag: 'admin',
    description: OPERATOR,
    body: putLimitsBody,
    example,
    responses: { 200: { description: 'The limits now in force', schema: accountLimits } },
    errors,
  },
  'PATCH /v1/admin/accounts/:id/limits': {
    summary: "Change some of an account's limits (null: back to the default)",
    tag: 'admin',
    description: OPERATOR,
    body: patchLimitsBody,
    example: { searches_per_day: 1000, max_memories: null },
    responses: { 200: { description: 'The limits now in force', schema: accountLimits } },
    errors,
  },
};
