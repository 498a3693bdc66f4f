import Joi from 'joi';
import { DATE_RANGE_YEARS, isoDate } from './common.schemas';

const FORMS = '{{#label}} must be Unix seconds (a number) or an ISO 8601 date-time string';
const unixSeconds = () =>
  Joi.number()
    .min(0)
    .custom((seconds: number) => new Date(Math.round(seconds * 1000)));

/**
 * A point in time as the memory's own timestamps are given (Unix seconds, like `created_at`; a
 * fraction is kept) or as an ISO 8601 string (docs/api.md, "Time-aware recall"). Either way a Date,
 * within the range every stored date keeps to (isoDate).
 */
export const instant = () =>
  Joi.alternatives()
    .try(unixSeconds(), isoDate().messages({ 'date.format': FORMS }))
    .messages({ 'alternatives.types': FORMS });

/**
 * An instant that has already happened: `as_of` asks what was known then, and the future is not
 * known. A future one says so, however far ahead; a past one keeps to the stored range.
 */
export const pastInstant = () =>
  Joi.alternatives()
    .try(unixSeconds(), Joi.date().iso().messages({ 'date.format': FORMS }))
    .messages({ 'alternatives.types': FORMS })
    .custom((at: Date, helpers) => {
      const now = new Date();
      if (at.getTime() > now.getTime()) return helpers.error('instant.future', { now: now.toISOString() });
      const min = new Date(now);
      min.setUTCFullYear(now.getUTCFullYear() - DATE_RANGE_YEARS);
      return at < min ? helpers.error('instant.range', { min: min.toISOString() }) : at;
    })
    .messages({
      'instant.future': '{{#label}} must not be in the future (now is {{#now}})',
      'instant.range': `{{#label}} must lie within ${DATE_RANGE_YEARS} years of now (after {{#min}})`,
    });
