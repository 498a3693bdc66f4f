import { createLogger, loadConfig } from '@ams/core';
import { connectRedis, type RedisConnection } from '@ams/runtime';
import { WriteFences } from '@ams/runtime';
import { freePort, waitFor } from '@ams/testing';

/** Read-your-writes fences in Redis: what one API process records, every other sees. */
describe('write fences', () => {
  const config = loadConfig();
  const logger = createLogger('api', { ...config, logLevel: 'error' });
  const prefix = `${config.redisKeyPrefix}:fences:${Date.now()}`;
  let redis: RedisConnection;
  let other: RedisConnection;

  beforeAll(async () => {
    redis = connectRedis(config.redisUrl!, logger);
    other = connectRedis(config.redisUrl!, logger);
    await waitFor(() => redis.isReady() && other.isReady(), 5_000, 'Redis');
  });
  afterAll(async () => {
    await redis.close();
    await other.close();
  });

  it("a key's fence recorded by one process is the one another reads; the later position wins", async () => {
    const a = new WriteFences(60_000, { conn: redis, prefix });
    const b = new WriteFences(60_000, { conn: other, prefix });
    expect(await b.after('key-1')).toBeUndefined();
    await a.note('key-1', 0x2_0000_0100n);
    expect(await b.after('key-1')).toBe(0x2_0000_0100n);
    // An earlier position noted later (a slower write's) never moves the fence back.
    await b.note('key-1', 0x1_ffff_0000n);
    expect(await a.after('key-1')).toBe(0x2_0000_0100n);
    await b.note('key-1', 0x2_0000_0200n);
    expect(await a.after('key-1')).toBe(0x2_0000_0200n);
    expect(await a.after('key-2')).toBeUndefined();
  });

  it('expires after its time to live: every replica in rotation has replayed the write by then', async () => {
    const a = new WriteFences(150, { conn: redis, prefix });
    const b = new WriteFences(150, { conn: other, prefix });
    await a.note('key-3', 42n);
    expect(await b.after('key-3')).toBe(42n);
    await waitFor(async () => (await b.after('key-3')) === undefined && (await a.after('key-3')) === undefined, 5_000, 'the fence to expire');
  });

  it('cannot be known while Redis is away: null, and the read goes to the primary', async () => {
    const away = connectRedis(`redis://127.0.0.1:${await freePort()}`, logger);
    try {
      const fences = new WriteFences(60_000, { conn: away, prefix });
      await fences.note('key-4', 7n);
      expect(await fences.after('key-4')).toBeNull();
    } finally {
      await away.close();
    }
  });

  it('without Redis, lives in the process', async () => {
    const fences = new WriteFences(60_000);
    await fences.note('key-5', 9n);
    await fences.note('key-5', 3n);
    expect(await fences.after('key-5')).toBe(9n);
    expect(await new WriteFences(60_000).after('key-5')).toBeUndefined();
  });
});
