import type { RequestHandler } from 'express';
import { findUnsafeText } from '../../validation/text-safety';

/**
 * The OAuth endpoints' and pages' hostile-text check: a NUL or unpaired surrogate in the query or
 * the parsed body (text PostgreSQL cannot store) is 400 in OAuth's error shape, before any lookup.
 * Their bodies are parsed here, not by the API's JSON parser, so the API's own check never sees them.
 */
export const refuseUnsafeText: RequestHandler = (req, res, next) => {
  const [problem] = [...findUnsafeText(req.query, 'query'), ...findUnsafeText(req.body ?? {}, 'body')];
  if (!problem) return next();
  res.status(400).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: problem.message });
};
