import type { RequestHandler } from 'express';
import { ApiError } from '@ams/core';
import { externalIssuer } from '../lib/external-issuer';
import { authenticateApiKey, checkAccessToken, OAUTH_PREFIX } from '@ams/accounts';
import type { AppContext } from '../context';
import { keyCheckDeps, oauthDeps } from '../domain-deps';
import { forgetRequestLogger } from './request-logger';

function presentedKey(authorization: string | undefined, xApiKey: string | undefined): string | undefined {
  if (xApiKey) return xApiKey.trim();
  const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/**
 * Identifies the caller but does not reject: the rate limiter runs next (per key when known, per
 * IP otherwise), and requireAuth then raises the failure, so 401s carry rate-limit headers too.
 */
export function identifyCaller(ctx: AppContext): RequestHandler {
  const oauth = !!ctx.config.oauth.publicUrl && !ctx.config.oauth.external;
  const external = externalIssuer(ctx);
  return async (req, _res, next) => {
    const key = presentedKey(req.get('authorization'), req.get('x-api-key'));
    if (!key) {
      req.authFailure = 'missing';
      return next();
    }
    // OAuth access tokens are for the MCP endpoint only (their audience); an API key never reaches this read.
    const onMcp = req.path === '/mcp';
    let result;
    if (oauth && onMcp && key.startsWith(OAUTH_PREFIX.access)) result = await checkAccessToken(oauthDeps(ctx), key, req.log);
    else if (external && onMcp && !key.startsWith('mem_')) {
      try {
        result = await external.check({ db: ctx.db.knex }, key);
      } catch (err) {
        req.log.error('oauth issuer unreachable', { error: err instanceof Error ? err.message : String(err) });
        return next(new ApiError('service_unavailable', 'The identity provider could not be reached; try again shortly'));
      }
    } else result = await authenticateApiKey(keyCheckDeps(ctx), key, () => req.log);
    if ('failure' in result) req.authFailure = result.failure;
    else {
      req.auth = result.auth;
      forgetRequestLogger(req);
    }
    next();
  };
}

const FAILURE_MESSAGES = {
  missing: 'Missing API key. Send it as "Authorization: Bearer <key>" or "X-API-Key: <key>"',
  invalid: 'Invalid API key',
  expired: 'API key has expired',
  revoked: 'API key has been revoked',
} as const;

export const requireAuth: RequestHandler = (req, _res, next) => {
  if (req.auth) return next();
  next(ApiError.unauthorized(FAILURE_MESSAGES[req.authFailure ?? 'missing']));
};
