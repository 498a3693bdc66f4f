import type { RequestHandler } from 'express';
import { rateLimit, ipKeyGenerator, MemoryStore, Store, Options, ClientRateLimitInfo } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import { ApiError, Logger } from '@ams/core';
import type { RedisConnection } from '../lib/redis';

const WINDOW_MS = 60_000;
const REDIS_RETRY_MS = 5_000;

/**
 * Redis-backed so every API process shares one budget; while Redis is unreachable, counts in
 * process instead (DESIGN §2: the API keeps serving without Redis) and retries Redis shortly after.
 */
export class ResilientStore implements Store {
  private redisStore: RedisStore | undefined;
  private redisRetryAt = 0;
  private readonly memory = new MemoryStore();
  private options!: Options;
  readonly prefix: string;

  constructor(
    private readonly redis: RedisConnection | undefined,
    prefix: string,
    private readonly logger: Logger,
  ) {
    this.prefix = prefix;
  }

  init(options: Options): void {
    this.options = options;
    this.memory.init(options);
  }

  private activeRedisStore(): RedisStore | undefined {
    if (!this.redis?.isReady() || Date.now() < this.redisRetryAt) return undefined;
    if (!this.redisStore) {
      const client = this.redis.client;
      const store = new RedisStore({
        prefix: this.prefix,
        sendCommand: (...args: string[]) => client.sendCommand(args),
      });
      // The store loads its Lua script eagerly; a failure there is handled on first use, not crashed on.
      (store as unknown as { incrementScriptSha: Promise<unknown> }).incrementScriptSha.catch(() => undefined);
      store.init(this.options);
      this.redisStore = store;
    }
    return this.redisStore;
  }

  private async withFallback<T>(op: (s: Store) => Promise<T> | T): Promise<T> {
    const store = this.activeRedisStore();
    if (store) {
      try {
        return await op(store);
      } catch (err) {
        this.logger.warn('rate limiting falls back to in-process counting', { error: (err as Error).message });
        this.redisStore = undefined;
        this.redisRetryAt = Date.now() + REDIS_RETRY_MS;
      }
    }
    return op(this.memory);
  }

  increment(key: string): Promise<ClientRateLimitInfo> {
    return this.withFallback((s) => s.increment(key));
  }
  async decrement(key: string): Promise<void> {
    await this.withFallback((s) => s.decrement(key));
  }
  async resetKey(key: string): Promise<void> {
    await this.withFallback((s) => s.resetKey(key));
  }
  async shutdown(): Promise<void> {
    this.memory.shutdown();
  }
}

export interface RateLimitSettings {
  redis: RedisConnection | undefined;
  keyPrefix: string;
  logger: Logger;
}

/** Whole seconds until the window resets (at least 1): Retry-After and the message both say it. */
const secondsUntil = (resetTime: Date | undefined) =>
  Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + WINDOW_MS) - Date.now()) / 1000));

function limiter(
  name: string,
  limit: (req: Parameters<RequestHandler>[0]) => number,
  key: (req: Parameters<RequestHandler>[0]) => string,
  s: RateLimitSettings,
): RequestHandler {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit: (req) => limit(req),
    keyGenerator: (req) => key(req),
    standardHeaders: false,
    legacyHeaders: true, // X-RateLimit-Limit / -Remaining / -Reset (Unix seconds)
    store: new ResilientStore(s.redis, `${s.keyPrefix}:rl:${name}:`, s.logger),
    handler: (req, res, next) => {
      const info = (req as unknown as { rateLimit?: { resetTime?: Date } }).rateLimit;
      const seconds = secondsUntil(info?.resetTime);
      res.setHeader('Retry-After', String(seconds));
      next(new ApiError('rate_limit_exceeded', `Rate limit exceeded. Retry in ${seconds} seconds.`));
    },
  });
}

const clientIp = (req: Parameters<RequestHandler>[0]) => ipKeyGenerator(req.ip ?? '0.0.0.0');

/** Per API key when the caller is known, per IP otherwise (including failed authentications). */
export function apiRateLimit(perKey: number, perIp: number, s: RateLimitSettings): RequestHandler {
  return limiter(
    'api',
    (req) => (req.auth ? perKey : perIp),
    (req) => (req.auth ? `key:${req.auth.keyId}` : `ip:${clientIp(req)}`),
    s,
  );
}

/** Registration hashes a password: a tighter, separate budget per IP. */
export function registerRateLimit(perIp: number, s: RateLimitSettings): RequestHandler {
  return limiter('register', () => perIp, (req) => `ip:${clientIp(req)}`, s);
}
