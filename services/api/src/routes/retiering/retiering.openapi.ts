import Joi from 'joi';
import { listOf, nullableIso, RouteDocs, shape, unixTime, uuidOut } from '../../openapi/route-docs';
import { retieringSettingsBody, tierMovesQuery } from './retiering.schemas';

const settings = shape({
  object: Joi.string().valid('retiering_settings'),
  enabled: Joi.boolean(),
  promote_recalls: Joi.number().integer(),
  promote_window_days: Joi.number().integer(),
  demote_after_days: Joi.number().integer(),
  interval_seconds: Joi.number().integer().description('How often the scheduled job visits an enabled account (0: not scheduled)'),
  last_run_at: nullableIso,
  last_run_moved: Joi.number().integer().allow(null),
});

const tierMove = shape({
  object: Joi.string().valid('tier_move'),
  id: uuidOut,
  memory_id: uuidOut,
  from: Joi.string().valid('hot', 'warm', 'cold'),
  to: Joi.string().valid('hot', 'warm', 'cold'),
  reason: Joi.string().valid('recalled', 'unused'),
  moved_at: unixTime.description('Unix seconds'),
});

const RULES =
  'Recent recall promotes one step (cold → warm → hot) when the memory was returned by searches or context builds at least ' +
  '`promote_recalls` times within about `promote_window_days` (each recall counts less as it ages: half after half the window). ' +
  'Disuse demotes one step when nothing recalled, created or moved it for `demote_after_days` × (1 + importance); ' +
  'a memory of importance ≥ 0.8 never drops below warm. A tier set by a user (`tier_pinned`) never moves.';

export const retieringOpenApi: RouteDocs = {
  'GET /v1/retiering': {
    summary: "The account's re-tiering rules and last run",
    description: RULES,
    responses: { 200: { description: 'The rules (defaults, off, until saved)', schema: settings } },
  },
  'PATCH /v1/retiering': {
    summary: "Change the account's re-tiering rules (admin)",
    body: retieringSettingsBody,
    example: { enabled: true, demote_after_days: 60 },
    responses: { 200: { description: 'The rules as saved', schema: settings } },
  },
  'POST /v1/retiering/run': {
    summary: 'Re-tier the account now (admin)',
    description: 'Runs the scheduled job for this account at once, with its rules (whether or not they are enabled).',
    responses: {
      200: {
        description: 'What the run did',
        schema: shape({
          object: Joi.string().valid('retiering_run'),
          scanned_batches: Joi.number().integer(),
          recalls_folded: Joi.number().integer(),
          promoted: Joi.number().integer(),
          demoted: Joi.number().integer(),
        }),
      },
    },
  },
  'GET /v1/retiering/moves': {
    summary: 'Tier moves made by re-tiering, newest first',
    query: tierMovesQuery,
    responses: { 200: { description: 'A page of moves', schema: listOf(tierMove, true) } },
  },
};
