import Joi from 'joi';
import { isoDate } from './common.schemas';

/**
 * A point in time as the memory's own timestamps are given (Unix seconds, like `created_at`; a
 * fraction is kept) or as an ISO 8601 string (docs/api.md, "Time-aware recall"). Either way a Date,
 * within the range every stored date keeps to (isoDate).
 */
export const instant = () =>
  Joi.alternatives()
    .try(
      Joi.number()
        .min(0)
        .custom((seconds: number) => new Date(Math.round(seconds * 1000))),
      isoDate().messages({ 'date.format': '{{#label}} must be Unix seconds (a number) or an ISO 8601 date-time string' }),
    )
    .messages({ 'alternatives.types': '{{#label}} must be Unix seconds (a number) or an ISO 8601 date-time string' });

/** An instant that has already happened: `as_of` asks what was known then, and the future is not known. */
export const pastInstant = () =>
  instant()
    .custom((at: Date, helpers) => (at.getTime() > Date.now() ? helpers.error('instant.future', { now: new Date().toISOString() }) : at))
    .messages({ 'instant.future': '{{#label}} must not be in the future (now is {{#now}})' });
