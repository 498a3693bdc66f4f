import type { RequestHandler } from 'express';
import { ApiError } from '@ams/core';
import { hasScope, Scope } from '../lib/scopes';

/** 403 unless the key holds `scope` (or admin). Mounted per route, next to the handler. */
export const requireScope =
  (scope: Scope): RequestHandler =>
  (req, _res, next) => {
    if (!req.auth) return next(ApiError.unauthorized());
    if (!hasScope(req.auth.scopes, scope)) return next(ApiError.forbidden(`Insufficient scope. Required: ${scope}`));
    next();
  };
