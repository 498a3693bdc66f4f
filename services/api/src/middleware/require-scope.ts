import type { RequestHandler } from 'express';
import { ApiError } from '@ams/core';
import { hasScope, Scope } from '@ams/accounts';
import { runAsRead } from './backpressure';

/** A requireScope middleware carries its scope, so the OpenAPI generator can read it off the route. */
export type ScopeGuard = RequestHandler & { readonly requiredScope: Scope };

/**
 * 403 unless the key holds `scope` (or admin). Mounted per route, next to the handler. The route's
 * scope also says whether it is a read (abandoned when its client leaves): a GET or HEAD, or any
 * route that needs only `read` (searches, context builds, checks are POSTs).
 */
export const requireScope = (scope: Scope): ScopeGuard => {
  const guard: RequestHandler = (req, _res, next) => {
    if (!req.auth) return next(ApiError.unauthorized());
    if (!hasScope(req.auth.scopes, scope)) return next(ApiError.forbidden(`Insufficient scope. Required: ${scope}`));
    if (scope === 'read' || req.method === 'GET' || req.method === 'HEAD') return runAsRead(req, next);
    next();
  };
  return Object.assign(guard, { requiredScope: scope });
};
