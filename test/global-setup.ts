import crypto from 'node:crypto';
import path from 'node:path';
import { createDatabase, createPostgresDatabase, migrateLatest } from '@ams/db';
import { ADMIN_DATABASE_URL, TEST_REDIS_URL } from './test-env';

/** One database per test run, migrated once; every test file reaches it through DATABASE_URL. */
export default async function globalSetup(): Promise<void> {
  const runId = `${Date.now().toString(36)}_${crypto.randomBytes(3).toString('hex')}`;
  const dbName = `ams_test_${runId}`;
  const url = await createPostgresDatabase(ADMIN_DATABASE_URL, dbName);
  const db = await createDatabase({ databaseUrl: url, dataDir: '', dbPoolMax: 1 });
  try {
    await migrateLatest(db.knex);
  } finally {
    await db.close();
  }
  process.env.NODE_ENV = 'test';
  process.env.DATABASE_URL = url;
  process.env.TEST_DATABASE_NAME = dbName;
  process.env.REDIS_URL = TEST_REDIS_URL;
  process.env.REDIS_KEY_PREFIX = `ams_test_${runId}`;
  // Tests never load the developer's ./models: those that need a model name the generated one's
  // directory, and a re-embed of the default model (the fuzz test's `{}` body) finds nothing to start.
  process.env.MODEL_DIR = path.join(__dirname, '..', '.cache', 'no-models');
  // The model runs on the test's own thread: jest runs many test files in one process, each with a
  // fresh module registry (so a fresh model thread), and onnxruntime-node loads in one thread per
  // process only. Child processes (startService) run it in its thread, as production does.
  process.env.EMBEDDING_THREAD = 'main';
  // Tests never write a key file under ./data: one key for the run, shared with child processes.
  process.env.WEBHOOK_SECRET_KEY ??= crypto.randomBytes(32).toString('base64');
}
