import knexFactory from 'knex';
import { createClient } from 'redis';
import { ADMIN_DATABASE_URL, TEST_REDIS_URL } from './test-env';

/** Drops the run's database and its Redis keys, whatever the tests left behind. */
export default async function globalTeardown(): Promise<void> {
  const dbName = process.env.TEST_DATABASE_NAME;
  if (dbName) {
    const admin = knexFactory({ client: 'pg', connection: ADMIN_DATABASE_URL, pool: { min: 0, max: 1 } });
    try {
      await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    } finally {
      await admin.destroy();
    }
  }
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
