import type { RequestHandler } from 'express';
import { rateLimit, ipKeyGenerator } from 'express-rate-limit';
import { ApiError, Logger } from '@ams/core';
import type { RedisConnection } from '@ams/runtime';
import { censusFor, ResilientStore } from './rate-limit-store';

const WINDOW_MS = 60_000;

export interface RateLimitSettings {
  redis: RedisConnection | undefined;
  keyPrefix: string;
  logger: Logger;
}

/** Whole seconds until the window resets (at least 1): Retry-After and the message both say it. */
const secondsUntil = (resetTime: Date | undefined) =>
  Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + WINDOW_MS) - Date.now()) / 1000));

/** A limiter's middleware; close() stops its store's timers (the app's close). */
export type RateLimiter = RequestHandler & { close(): Promise<void> };

type Req = Parameters<RequestHandler>[0];

/** How a limiter reports: the rate headers and req.rateLimit (the key's budget), or neither (a second budget). */
interface LimiterShape {
  headers: boolean;
  /** Requests it does not count. */
  skip?: (req: Req) => boolean;
  /** The 429's message, given the seconds to wait. */
  message?: (req: Req, seconds: number) => string;
}

/** `key`: whose budget a request spends; `limitOf`: that budget per window, from the key. */
function limiter(name: string, key: (req: Req) => string, limitOf: (key: string) => number, s: RateLimitSettings, shape: LimiterShape = { headers: true }): RateLimiter {
  const store = new ResilientStore(s.redis, `${s.keyPrefix}:rl:${name}:`, s.logger, limitOf, s.redis && censusFor(s.redis, s.keyPrefix).retain());
  const handler = rateLimit({
    windowMs: WINDOW_MS,
    // Asked after the hit is counted: while Redis is away, this process's share of the limit.
    limit: (req) => store.effectiveLimit(limitOf(key(req))),
    keyGenerator: (req) => key(req),
    standardHeaders: false,
    legacyHeaders: shape.headers, // X-RateLimit-Limit / -Remaining / -Reset (Unix seconds)
    requestPropertyName: shape.headers ? 'rateLimit' : `rateLimit_${name}`,
    skip: shape.skip,
    store,
    handler: (req, res, next) => {
      const info = (req as unknown as Record<string, { resetTime?: Date } | undefined>)[shape.headers ? 'rateLimit' : `rateLimit_${name}`];
      const seconds = secondsUntil(info?.resetTime);
      res.setHeader('Retry-After', String(seconds));
      next(new ApiError('rate_limit_exceeded', shape.message?.(req, seconds) ?? `Rate limit exceeded. Retry in ${seconds} seconds.`));
    },
  });
  return Object.assign(handler, { close: () => store.shutdown() });
}

const clientIp = (req: Parameters<RequestHandler>[0]) => ipKeyGenerator(req.ip ?? '0.0.0.0');

/** Per API key when the caller is known, per IP otherwise (including failed authentications). */
export function apiRateLimit(perKey: number, perIp: number, s: RateLimitSettings): RateLimiter {
  return limiter('api', (req) => (req.auth ? `key:${req.auth.keyId}` : `ip:${clientIp(req)}`), (key) => (key.startsWith('key:') ? perKey : perIp), s);
}

/** Registration hashes a password: a tighter, separate budget per IP. */
export function registerRateLimit(perIp: number, s: RateLimitSettings): RateLimiter {
  return limiter('register', (req) => `ip:${clientIp(req)}`, () => perIp, s);
}

/**
 * The account's requests_per_minute, all its keys together (beside each key's budget): its own
 * limit or the default, from the cached limits; 0 is none (not counted). No rate headers: those
 * stay the key's.
 */
export function accountRateLimit(perMinuteOf: (accountId: string) => number, s: RateLimitSettings): RateLimiter {
  const accountOf = (key: string) => key.slice('account:'.length);
  return limiter('account', (req) => `account:${req.auth?.accountId ?? ''}`, (key) => perMinuteOf(accountOf(key)), s, {
    headers: false,
    skip: (req) => !req.auth || perMinuteOf(req.auth.accountId) <= 0,
    message: (req, seconds) =>
      `Rate limit exceeded: requests_per_minute is ${perMinuteOf(req.auth!.accountId)} for this account (all its keys together), and all of them are used this minute. Retry in ${seconds} seconds.`,
  });
}
