import Joi from 'joi';
import { dateBounds, DATE_RANGE_YEARS, toInstant } from './common.schemas';

const FORMS = '{{#label}} must be Unix seconds (a number) or an ISO 8601 date-time string';

/**
 * Unix seconds or an ISO 8601 string, as a Date; not yet range-checked. A negative number is a
 * date like any other: the range check names the bound, one message for all.
 */
const eitherForm = () =>
  Joi.alternatives()
    .try(
      Joi.number().custom((seconds: number) => toInstant(seconds)),
      Joi.date().iso().messages({ 'date.format': FORMS }),
    )
    .messages({ 'alternatives.types': FORMS });

/**
 * A point in time as the memory's own timestamps are given (Unix seconds, like `created_at`) or as
 * an ISO 8601 string (docs/api.md, "Time-aware recall"), within DATE_RANGE_YEARS of now like every
 * stored date (isoDate): a Date.
 */
export const instant = () =>
  eitherForm()
    .custom((at: Date, helpers) => {
      const now = new Date();
      const { min, max } = dateBounds(now);
      return Number.isNaN(at.getTime()) || at < min || at > max ? helpers.error('instant.range', { min: min.toISOString(), max: max.toISOString() }) : at;
    })
    .messages({ 'instant.range': `{{#label}} must lie within ${DATE_RANGE_YEARS} years of now (between {{#min}} and {{#max}})` });

/**
 * An instant that has already happened: `as_of` asks what was known then, and the future is not
 * known. A future one says so, however far ahead; a past one keeps to the stored range.
 */
export const pastInstant = () =>
  eitherForm()
    .custom((at: Date, helpers) => {
      const now = new Date();
      const { min } = dateBounds(now);
      if (Number.isNaN(at.getTime()) || at < min) return helpers.error('instant.range', { min: min.toISOString() });
      return at.getTime() > now.getTime() ? helpers.error('instant.future', { now: now.toISOString() }) : at;
    })
    .messages({
      'instant.future': '{{#label}} must not be in the future (now is {{#now}})',
      'instant.range': `{{#label}} must lie within ${DATE_RANGE_YEARS} years of now (after {{#min}})`,
    });
