import crypto from 'node:crypto';
import knexFactory from 'knex';
import { migrateLatest } from '../packages/db/src/migrate';
import { ADMIN_DATABASE_URL, TEST_REDIS_URL, databaseUrlFor } from './test-env';

/** One database per test run, migrated once; every test file reaches it through DATABASE_URL. */
export default async function globalSetup(): Promise<void> {
  const runId = `${Date.now().toString(36)}_${crypto.randomBytes(3).toString('hex')}`;
  const dbName = `ams_test_${runId}`;
  const admin = knexFactory({ client: 'pg', connection: ADMIN_DATABASE_URL, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`CREATE DATABASE ${dbName}`);
  } finally {
    await admin.destroy();
  }
  const url = databaseUrlFor(dbName);
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    await migrateLatest(knex);
  } finally {
    await knex.destroy();
  }
  process.env.NODE_ENV = 'test';
  process.env.DATABASE_URL = url;
  process.env.TEST_DATABASE_NAME = dbName;
  process.env.REDIS_URL = TEST_REDIS_URL;
  process.env.REDIS_KEY_PREFIX = `ams_test_${runId}`;
  // Tests never write a key file under ./data: one key for the run, shared with child processes.
  process.env.WEBHOOK_SECRET_KEY ??= crypto.randomBytes(32).toString('base64');
}
