import crypto from 'node:crypto';
import { MemoryStore, Store, Options, ClientRateLimitInfo } from 'express-rate-limit';
import { periodic, withTimeout, type Logger, type PeriodicTask } from '@ams/core';
import type { RedisConnection } from '@ams/runtime';

const REDIS_RETRY_MS = 5_000;
/** A Redis that answers nothing (paused, swapping) must not hold requests: past this, count in process. */
const REDIS_ANSWER_MS = 250;
const answered = <T>(call: Promise<T>) => withTimeout(call, REDIS_ANSWER_MS, `Redis did not answer within ${REDIS_ANSWER_MS} ms`);
/**
 * A key whose last Redis count (at most this old) left more than half its budget is not waited
 * for: its hit still goes to Redis, the answer comes later. Near the limit every request waits.
 */
const FRESH_COUNT_MS = 1_000;
const UNWAITED_SHARE = 0.5;
/** The hits not waited for go to Redis together: one command per key at most this often. */
const COALESCE_MS = 20;
const CENSUS_INTERVAL_MS = 5_000;
/** A process that has not checked in for this long is gone. */
const CENSUS_TTL_MS = 20_000;
const MAX_OBSERVED = 50_000;

// Raise a key to at least ARGV[1] hits, expiring at ARGV[2] ms from now: never lowers a count.
const RESTORE_SCRIPT = `local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local want = tonumber(ARGV[1])
if cur < want then redis.call('SET', KEYS[1], want, 'PX', ARGV[2]) return want end
return cur`;

// Add ARGV[1] hits to a key, opening its window (ARGV[2] ms) if it has none; never moves a window.
const INCREMENT_BY_SCRIPT = `local hits = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) ttl = tonumber(ARGV[2]) end
return { hits, ttl }`;

/**
 * How many API processes share the Redis budget: each checks in to a sorted set every few seconds
 * and counts the others. Remembered while Redis is away, to split the budget then.
 */
export class ProcessCensus {
  private readonly id = crypto.randomUUID();
  private checkIns?: PeriodicTask;
  /** The stores counting on this census (retain/release). */
  private users = 0;
  /** Last count seen in Redis (this process included); 1 until one is seen. */
  processes = 1;

  constructor(
    private readonly redis: RedisConnection,
    private readonly key: string,
  ) {}

  start(): void {
    // checkIn keeps the last count when Redis fails: it never throws, so nothing is logged here.
    this.checkIns ??= periodic({ name: 'rate-limit census', intervalMs: CENSUS_INTERVAL_MS, logger: { warn: () => undefined } }, () => this.checkIn());
  }

  stop(): void {
    void this.checkIns?.stop();
    this.checkIns = undefined;
  }

  /** A store counts on this census until its release(): running while any does. */
  retain(): this {
    this.users++;
    this.start();
    return this;
  }

  /** The last user's release stops the check-ins, so a closed app leaves no timer behind. */
  release(): void {
    this.users = Math.max(0, this.users - 1);
    if (this.users === 0) this.stop();
  }

  async checkIn(): Promise<void> {
    if (!this.redis.isReady()) return;
    const now = Date.now();
    try {
      const c = this.redis.client;
      await c.zAdd(this.key, { score: now, value: this.id });
      await c.zRemRangeByScore(this.key, 0, now - CENSUS_TTL_MS);
      await c.pExpire(this.key, CENSUS_TTL_MS);
      this.processes = Math.max(1, await c.zCard(this.key));
    } catch {
      // Redis went away mid-way: the last count stands.
    }
  }
}

interface Observed {
  hits: number;
  resetAt: number;
  /** Date.now() of the answer. */
  at: number;
}

const censuses = new WeakMap<RedisConnection, Map<string, ProcessCensus>>();

/** One census per Redis connection and prefix, shared by every limiter of the app. */
export function censusFor(redis: RedisConnection, keyPrefix: string): ProcessCensus {
  let byPrefix = censuses.get(redis);
  if (!byPrefix) censuses.set(redis, (byPrefix = new Map()));
  let census = byPrefix.get(keyPrefix);
  if (!census) {
    census = new ProcessCensus(redis, `${keyPrefix}:rl:processes`);
    byPrefix.set(keyPrefix, census);
    census.start();
  }
  return census;
}

/**
 * The rate-limit store: Redis-backed, so every API process shares one budget. While Redis is
 * unreachable each process counts alone, but against its share of the limit (limit ÷ the number of
 * processes last seen), so N processes never allow N × the limit. The hits each process saw per key
 * are remembered, so when Redis comes back empty (restarted without persistence) a key's count is
 * raised back to what was known instead of starting over.
 *
 * Far from its limit a request does not wait for Redis (~0.4 ms a request): with its key's count
 * from Redis under a second old and under half the limit, the count is estimated (that count, the
 * hits still on their way, this one) and the hit goes to Redis in the background, with the key's
 * other such hits of the next COALESCE_MS in one command (a busy key costs Redis and this process
 * one round trip per 20 ms, not one per request). Its answer refreshes the estimate; near the limit
 * every request waits for its own. Processes that together spend half a key's budget within a
 * second can so admit a few requests over it: at most the ones each receives while its own count
 * for the key is on the way.
 */
export class ResilientStore implements Store {
  private redisRetryAt = 0;
  private readonly memory = new MemoryStore();
  /** Per key: the count Redis last gave (or was raised to), and when. */
  private readonly observed = new Map<string, Observed>();
  /** Per key: this process's hits on their way to Redis (waiting for their batch, or sent). */
  private readonly unanswered = new Map<string, number>();
  /** Per key: the hits not waited for, waiting for the next batch (COALESCE_MS). */
  private batch = new Map<string, number>();
  private batchTimer?: NodeJS.Timeout;
  private options!: Options;
  readonly prefix: string;
  /** Whether the last increment was counted in process (Redis away). */
  degraded = false;

  constructor(
    private readonly redis: RedisConnection | undefined,
    prefix: string,
    private readonly logger: Logger,
    private readonly limitOf: (key: string) => number,
    private readonly census?: ProcessCensus,
  ) {
    this.prefix = prefix;
  }

  init(options: Options): void {
    this.options = options;
    this.memory.init(options);
  }

  /** The limit to apply to the request just counted: all of it, or this process's share while Redis is away. */
  effectiveLimit(limit: number): number {
    if (!this.degraded || !this.redis) return limit;
    return Math.max(1, Math.floor(limit / (this.census?.processes ?? 1)));
  }

  /** Redis is connected and not in the pause after a failed call. */
  private redisUsable(): boolean {
    return !!this.redis?.isReady() && Date.now() >= this.redisRetryAt;
  }

  private fallBack(err: unknown): void {
    this.logger.warn('rate limiting falls back to in-process counting at a per-process share', { error: (err as Error).message });
    this.redisRetryAt = Date.now() + REDIS_RETRY_MS;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    if (this.redisUsable()) {
      const estimate = this.unwaitedEstimate(key);
      if (estimate) {
        this.countLater(key);
        return estimate;
      }
      try {
        return await this.countNow(key);
      } catch (err) {
        this.fallBack(err);
      }
    }
    this.degraded = true;
    const info = await this.memory.increment(key);
    const seen = this.observed.get(key);
    if (seen && seen.resetAt > Date.now()) seen.hits++;
    return info;
  }

  /** The hit counted in Redis, with the key's hits waiting for their batch: the answer is the whole count. */
  private countNow(key: string): Promise<ClientRateLimitInfo> {
    const hits = (this.batch.get(key) ?? 0) + 1;
    this.batch.delete(key);
    return this.counting(key, hits, () => this.incrementBy(key, hits));
  }

  /** `hits` of `key` on their way to Redis while `count` runs; its answer (restored if Redis lost the key) remembered. */
  private async counting(key: string, hits: number, count: () => Promise<ClientRateLimitInfo>): Promise<ClientRateLimitInfo> {
    this.unanswered.set(key, (this.unanswered.get(key) ?? 0) + hits);
    try {
      const info = await answered(count().then((counted) => this.restoreIfLost(key, counted, hits)));
      this.degraded = false;
      this.observe(key, info.totalHits, info.resetTime?.getTime() ?? Date.now() + this.options.windowMs);
      return info;
    } finally {
      const left = this.unanswered.get(key)! - hits;
      if (left > 0) this.unanswered.set(key, left);
      else this.unanswered.delete(key);
    }
  }

  /** A hit not waited for: counted in Redis with the key's others of the next COALESCE_MS. */
  private countLater(key: string): void {
    this.batch.set(key, (this.batch.get(key) ?? 0) + 1);
    this.batchTimer ??= setTimeout(() => this.sendBatch(), COALESCE_MS).unref();
  }

  /** One command per key for its hits not waited for; a failure falls back as a waited one does. */
  private sendBatch(): void {
    const batch = this.batch;
    this.batch = new Map();
    this.batchTimer = undefined;
    for (const [key, hits] of batch) {
      this.counting(key, hits, () => this.incrementBy(key, hits)).catch((err) => this.fallBack(err));
    }
  }

  private async incrementBy(key: string, hits: number): Promise<ClientRateLimitInfo> {
    const reply = await this.redis!.client.sendCommand(['EVAL', INCREMENT_BY_SCRIPT, '1', this.prefix + key, String(hits), String(this.options.windowMs)]);
    const [totalHits, ttl] = reply as unknown as [number, number];
    return { totalHits: Number(totalHits), resetTime: new Date(Date.now() + Number(ttl)) };
  }

  /** The count without waiting for Redis, this hit included, when its last answer is fresh and far from the limit (see the class). */
  private unwaitedEstimate(key: string): ClientRateLimitInfo | undefined {
    const seen = this.observed.get(key);
    const now = Date.now();
    if (!seen || seen.resetAt <= now || now - seen.at > FRESH_COUNT_MS) return undefined;
    const totalHits = seen.hits + (this.unanswered.get(key) ?? 0) + (this.batch.get(key) ?? 0) + 1;
    if (totalHits > this.limitOf(key) * UNWAITED_SHARE) return undefined;
    this.degraded = false;
    return { totalHits, resetTime: new Date(seen.resetAt) };
  }

  /** A fresh count (just the `added` hits) for a key whose window this process knows is still open: Redis lost it; raise it back. */
  private async restoreIfLost(key: string, info: ClientRateLimitInfo, added: number): Promise<ClientRateLimitInfo> {
    const seen = this.observed.get(key);
    const now = Date.now();
    if (info.totalHits !== added || !seen || seen.resetAt <= now || seen.hits < 1) return info;
    const ttl = seen.resetAt - now;
    const restored = Number(await this.redis!.client.sendCommand(['EVAL', RESTORE_SCRIPT, '1', this.prefix + key, String(seen.hits + added), String(ttl)]));
    return { totalHits: restored, resetTime: new Date(seen.resetAt) };
  }

  /** Answers can arrive out of order: within a window the count only grows. */
  private observe(key: string, hits: number, resetAt: number): void {
    const seen = this.observed.get(key);
    if (seen && seen.resetAt === resetAt) {
      seen.hits = Math.max(seen.hits, hits);
      seen.at = Date.now();
      return;
    }
    if (this.observed.size >= MAX_OBSERVED) {
      const now = Date.now();
      for (const [k, v] of this.observed) if (v.resetAt <= now) this.observed.delete(k);
      if (this.observed.size >= MAX_OBSERVED) this.observed.clear();
    }
    this.observed.set(key, { hits, resetAt, at: Date.now() });
  }

  /** `command` on the key in Redis, or `inProcess` while Redis is away. */
  private async withFallback(key: string, command: string, inProcess: () => Promise<void> | void): Promise<void> {
    if (this.redisUsable()) {
      try {
        await answered(this.redis!.client.sendCommand([command, this.prefix + key]));
        return;
      } catch (err) {
        this.fallBack(err);
      }
    }
    await inProcess();
  }

  async decrement(key: string): Promise<void> {
    await this.withFallback(key, 'DECR', () => this.memory.decrement(key));
  }
  async resetKey(key: string): Promise<void> {
    this.observed.delete(key);
    this.batch.delete(key);
    await this.withFallback(key, 'DEL', () => this.memory.resetKey(key));
  }
  /** Sends the hits not yet sent, stops the in-process store's sweep and releases the census (the app's close). */
  async shutdown(): Promise<void> {
    clearTimeout(this.batchTimer);
    if (this.batch.size > 0 && this.redisUsable()) this.sendBatch();
    this.memory.shutdown();
    this.census?.release();
  }
}
