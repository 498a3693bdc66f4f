import Joi from 'joi';
import { decodeCursor } from '@ams/db';
import { codePointLength } from './text-safety';

const METADATA_MAX_BYTES = 10_240;

export const uuid = Joi.string().guid({ version: ['uuidv1', 'uuidv2', 'uuidv3', 'uuidv4', 'uuidv5', 'uuidv7', 'uuidv8'] });

/** "10 KB" is 10,240 bytes of the value serialized as JSON (UTF-8). */
export const metadata = Joi.object()
  .unknown(true)
  .custom((value, helpers) =>
    Buffer.byteLength(JSON.stringify(value), 'utf8') > METADATA_MAX_BYTES ? helpers.error('metadata.size') : value,
  )
  .messages({ 'metadata.size': '{{#label}} must be at most 10KB (10,240 bytes) when serialized as JSON' });

/**
 * A number in [0, 1] as stored in a `real` column: values too small for float4 (below ~1.2e-38,
 * e.g. 1e-155) would make PostgreSQL fail with "out of range for type real"; they are 0.
 */
export const unitInterval = () =>
  Joi.number()
    .min(0)
    .max(1)
    .custom((v: number) => (v < 1.2e-38 ? 0 : v));

/**
 * Text that must carry something besides white space, at most `max` characters counted as code points
 * (the spec's "characters": 50,000 emoji are 50,000 characters, not 100,000 UTF-16 units).
 */
export const nonBlank = (max: number) =>
  Joi.string()
    .custom((v: string, helpers) => {
      if (v.length > max && codePointLength(v) > max) return helpers.error('string.maxChars', { limit: max });
      return v.trim().length === 0 ? helpers.error('string.blank') : v;
    })
    .messages({
      'string.blank': '{{#label}} must not be empty or whitespace-only',
      'string.maxChars': '{{#label}} must be at most {{#limit}} characters long',
    });

/** How far from now a stored date may lie, either way: the one bound every date member of every schema shares. */
export const DATE_RANGE_YEARS = 100;

/** The one reading of a date the API takes: Unix seconds (a fraction is kept, as created_at is given) or ISO 8601. */
export const toInstant = (v: number | string): Date => (typeof v === 'number' ? new Date(Math.round(v * 1000)) : new Date(v));

/** The earliest and latest date any stored date may take: DATE_RANGE_YEARS either side of `now`. */
export function dateBounds(now = new Date()): { min: Date; max: Date } {
  const min = new Date(now);
  min.setUTCFullYear(now.getUTCFullYear() - DATE_RANGE_YEARS);
  const max = new Date(now);
  max.setUTCFullYear(now.getUTCFullYear() + DATE_RANGE_YEARS);
  return { min, max };
}

/**
 * An ISO 8601 date within DATE_RANGE_YEARS of now. Beyond that the backends disagree (PGlite fails
 * on dates PostgreSQL stores) and a far-future row would head every newest-first page for ever.
 */
export const isoDate = () =>
  Joi.date()
    .iso()
    .custom((v: Date, helpers) => {
      const { min, max } = dateBounds();
      return v < min || v > max ? helpers.error('date.range', { min: min.toISOString(), max: max.toISOString() }) : v;
    })
    .messages({ 'date.range': `{{#label}} must lie within ${DATE_RANGE_YEARS} years of now (between {{#min}} and {{#max}})` });

export const tags = Joi.array().items(Joi.string().min(1).max(100)).max(20);

const cursor = Joi.string()
  .max(500)
  .custom((raw: string, helpers) => decodeCursor(raw) ?? helpers.error('cursor.invalid'))
  .messages({ 'cursor.invalid': '{{#label}} is not a cursor issued by this service' });

/** limit 1-100 (default 20), offset ≥ 0 (default 0), optional cursor: every list endpoint. */
export const pagination = {
  limit: Joi.number().integer().min(1).max(100).default(20),
  offset: Joi.number().integer().min(0).max(1_000_000).default(0),
  cursor,
};

/** The standard list envelope; memories, entities and agents also carry object: list. */
export function listResponse<T>(
  page: { hasMore: boolean; nextCursor: string | null; totalCount: number },
  data: T[],
  withObject = false,
) {
  return {
    ...(withObject ? { object: 'list' } : {}),
    data,
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
    total_count: page.totalCount,
  };
}

/**
 * When a memory expires, as `created_at` is given (Unix seconds) or as ISO 8601; `never`
 * for no expiry (JSON null means "absent" here; see dropNulls). It must lie in the future, and
 * within DATE_RANGE_YEARS. Converted to a Date, or null for `never`.
 */
const EXPIRES_AT_FORMS = '{{#label}} must be Unix seconds, an ISO 8601 date or "never"';

export const expiresAt = Joi.alternatives()
  .try(Joi.number().integer(), Joi.string().valid('never'), Joi.string().isoDate().messages({ 'string.isoDate': EXPIRES_AT_FORMS }))
  .custom((v: number | string, helpers) => {
    if (v === 'never') return null;
    const at = toInstant(v);
    const now = new Date();
    if (at.getTime() <= now.getTime()) return helpers.error('expires.past', { at: at.toISOString(), now: now.toISOString() });
    if (at > dateBounds(now).max) return helpers.error('expires.far', { years: DATE_RANGE_YEARS });
    return at;
  })
  .messages({
    'alternatives.match': EXPIRES_AT_FORMS,
    'alternatives.types': EXPIRES_AT_FORMS,
    'expires.past': '{{#label}} must be in the future: {{#at}} is not after now ({{#now}})',
    'expires.far': '{{#label}} must lie within {{#years}} years of now',
  })
  .description('Unix seconds (as created_at), an ISO 8601 date, or "never"');

/** Seconds from now until a memory expires (at most 100 years). */
export const ttlSeconds = Joi.number().integer().min(1).max(DATE_RANGE_YEARS * 365 * 86_400);

/**
 * ttl_seconds or expires_at (not both) on a memory write; ttl_seconds becomes expires_at here,
 * so the domain sees one member.
 */
export function withExpiry<T extends Joi.ObjectSchema>(schema: T): T {
  return schema
    .oxor('ttl_seconds', 'expires_at')
    .messages({ 'object.oxor': 'Give ttl_seconds or expires_at, not both' })
    .custom(({ ttl_seconds, ...rest }: { ttl_seconds?: number; expires_at?: Date | null }) =>
      ttl_seconds === undefined ? rest : { ...rest, expires_at: new Date(Date.now() + ttl_seconds * 1000) },
    ) as T;
}
