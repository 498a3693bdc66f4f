import type { Express, RequestHandler } from 'express';
import { allowedMethods } from '../lib/route-table';

/**
 * OPTIONS answers 204 with `Allow` for any path some route serves (Express's own answer is a text body
 * from whichever sub-router matched first); an unknown path falls through to the 404 envelope.
 */
export function answerOptions(app: Express): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    const methods = allowedMethods(app, req.path);
    if (methods.length === 0) return next();
    res.set('Allow', [...methods, 'OPTIONS'].join(', ')).status(204).end();
  };
}
