import type { RequestHandler } from 'express';
import { ApiError } from '@ams/core';
import { hasScope, Scope } from '../lib/scopes';

/** A requireScope middleware carries its scope, so the OpenAPI generator can read it off the route. */
export type ScopeGuard = RequestHandler & { readonly requiredScope: Scope };

/** 403 unless the key holds `scope` (or admin). Mounted per route, next to the handler. */
export const requireScope = (scope: Scope): ScopeGuard => {
  const guard: RequestHandler = (req, _res, next) => {
    if (!req.auth) return next(ApiError.unauthorized());
    if (!hasScope(req.auth.scopes, scope)) return next(ApiError.forbidden(`Insufficient scope. Required: ${scope}`));
    next();
  };
  return Object.assign(guard, { requiredScope: scope });
};
