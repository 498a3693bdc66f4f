import crypto from 'node:crypto';
import path from 'node:path';
import type { Config } from '@jest/types';
import { createDatabase, createPostgresDatabase, migrateLatest } from '@ams/db';
// The one module of @ams/testing needed here (its index loads the whole API).
import { ensureBuilt } from '@ams/testing/processes';
import { useRunTmpDir } from './run-tmpdir';
import { ADMIN_DATABASE_URL, databaseUrlFor, TEST_ON_CITUS, TEST_REDIS_URL, workerDatabaseName } from './test-env';

/**
 * One migrated template database for the run, and a clone of it per jest worker (CREATE DATABASE …
 * TEMPLATE copies files: far quicker than migrating again). Each worker's files reach their clone
 * through DATABASE_URL (test/worker-env.ts): the embedding worker's and webhook dispatcher's claims
 * span accounts, so two files sharing a database could claim each other's rows.
 * Every name starts with TEST_DATABASE_NAME, which the teardown drops by prefix.
 */
/** The names after jest's --selectProjects (jest keeps them out of the global config). */
function selectedProjects(): string[] {
  const at = process.argv.indexOf('--selectProjects');
  if (at < 0) return [];
  const rest = process.argv.slice(at + 1);
  const end = rest.findIndex((arg) => arg.startsWith('-'));
  return end < 0 ? rest : rest.slice(0, end);
}

export default async function globalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  // `npm run test:unit` (--selectProjects unit) needs no services.
  if (selectedProjects().join() === 'unit') return;
  // Process tests start services from dist/ (as production does): brought up to date once, before any
  // test's timeout runs (a clone never built takes a minute or two here; an up-to-date tree, its check).
  ensureBuilt();
  const runId = `${Date.now().toString(36)}_${crypto.randomBytes(3).toString('hex')}`;
  const runName = `ams_test_${runId}`;
  const template = `${runName}_tpl`;
  // Set first, so the teardown drops whatever got made even when a step below fails.
  process.env.TEST_DATABASE_NAME = runName;
  useRunTmpDir(runName);
  const workers = Math.max(1, globalConfig.maxWorkers);
  if (TEST_ON_CITUS) await migratedPerWorker(runName, workers);
  else await clonedPerWorker(runName, template, workers);
  process.env.NODE_ENV = 'test';
  // The template's URL; test/worker-env.ts points each worker at its clone.
  process.env.DATABASE_URL = databaseUrlFor(ADMIN_DATABASE_URL, template);
  process.env.REDIS_URL = TEST_REDIS_URL;
  process.env.REDIS_KEY_PREFIX = runName;
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

/** On Citus: 4 shards a table (2 a worker) keep the migration quick and still spread accounts over both workers. */
async function migrated(name: string): Promise<void> {
  const url = await createPostgresDatabase(ADMIN_DATABASE_URL, name, { citusShardCount: 4 });
  const db = await createDatabase({ databaseUrl: url, dataDir: '', dbPoolMax: 1 });
  try {
    await migrateLatest(db.knex);
  } finally {
    await db.close();
  }
}

async function clonedPerWorker(runName: string, template: string, workers: number): Promise<void> {
  await migrated(template);
  // Eagerly, one per worker jest may start (JEST_WORKER_ID is 1..maxWorkers): a clone takes a
  // fraction of a second, and made here no two workers ever race to make one.
  const admin = await createDatabase({ databaseUrl: ADMIN_DATABASE_URL, dataDir: '', dbPoolMax: 1 });
  try {
    for (let id = 1; id <= workers; id++) {
      const name = workerDatabaseName(runName, String(id));
      await admin.knex.raw(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      // Test data is thrown away: no commit waits for its WAL flush.
      await admin.knex.raw(`ALTER DATABASE ${name} SET synchronous_commit = off`);
    }
  } finally {
    await admin.close();
  }
}

/**
 * On Citus a database is a set of databases, one per node, tied by the coordinator's metadata, and
 * Citus' maintenance daemon stays connected to each (no TEMPLATE copy): each worker's is made and
 * migrated on its own (the template name is left unused).
 */
async function migratedPerWorker(runName: string, workers: number): Promise<void> {
  for (let id = 1; id <= workers; id++) await migrated(workerDatabaseName(runName, String(id)));
}
