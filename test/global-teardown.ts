import { createClient } from 'redis';
import { dropPostgresDatabase } from '@ams/db';
import { ADMIN_DATABASE_URL, TEST_REDIS_URL } from './test-env';

/** Drops the run's database and its Redis keys, whatever the tests left behind. */
export default async function globalTeardown(): Promise<void> {
  const dbName = process.env.TEST_DATABASE_NAME;
  if (dbName) await dropPostgresDatabase(ADMIN_DATABASE_URL, dbName);
  const prefix = process.env.REDIS_KEY_PREFIX;
  if (prefix) {
    const redis = createClient({ url: TEST_REDIS_URL });
    await redis.connect();
    try {
      for await (const key of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) await redis.del(key);
    } finally {
      await redis.quit();
    }
  }
}
