import Joi from 'joi';
import { decodeVersionCursor, type HistoryQuery } from '@ams/memories';

export type HistoryQueryParams = HistoryQuery;

/** limit and offset as every list; the cursor is a history page's own (a version number, opaque). */
export const historyQuery = Joi.object<HistoryQueryParams>({
  limit: Joi.number().integer().min(1).max(100).default(20),
  offset: Joi.number().integer().min(0).max(1_000_000).default(0),
  cursor: Joi.string()
    .max(100)
    .custom((raw: string, helpers) => decodeVersionCursor(raw) ?? helpers.error('cursor.invalid'))
    .messages({ 'cursor.invalid': '{{#label}} is not a cursor issued by this history' }),
});

/** A version in a path: a positive integer; anything else names no version (404). */
export const versionParam = Joi.number().integer().min(1).max(2_147_483_647).required();
