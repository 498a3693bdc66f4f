import type { RequestHandler } from 'express';
import { ApiError } from '@ams/core';
import { assertSafeText } from '../validation/text-safety';

/**
 * The URL's edge: a malformed %-escape is 400; a NUL or unpaired surrogate in the path or in any query
 * parameter is 422 naming it. Bodies get the same check as they are parsed (json-body.ts).
 */
export const safeUrl: RequestHandler = (req, _res, next) => {
  let path: string;
  try {
    path = decodeURIComponent(req.path);
  } catch {
    return next(ApiError.badRequest('Malformed percent-encoding in the URL path'));
  }
  try {
    assertSafeText(path, 'path');
    assertSafeText(req.query);
  } catch (err) {
    return next(err);
  }
  next();
};
