import type { Express } from 'express';
import supertest from 'supertest';
import { createLogger, loadConfig, Config, type Logger } from '@ams/core';
import { accountsRepository, createDatabase, Database } from '@ams/db';
import { Embedder, LexicalEmbedder } from '@ams/embeddings';
import type { Registry } from 'prom-client';
import { createApp, importRecordRules, issueApiKey, type AppContext, type Scope } from '@ams/api';
import { apiRole, connectRedis, start, type RedisConnection } from '@ams/runtime';
import { waitFor } from './wait';
import { createTestPglite } from './test-pglite';
import { withConformanceChecks } from './openapi-conformance';

const RELAXED_LIMITS = {
  RATE_LIMIT_PER_MINUTE: '100000',
  UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '100000',
  REGISTER_RATE_LIMIT_PER_MINUTE: '100000',
  // Load shedding depends on how busy the machine is and on a test's own bursts (the worker tests post
  // 40 creates at once): off unless a test asks (backpressure.test.ts); the deadline stays as configured.
  MAX_IN_FLIGHT_REQUESTS: '0',
  MAX_DB_POOL_WAIT_MS: '0',
  MAX_EVENT_LOOP_DELAY_MS: '0',
};

export type TestBackend = 'postgres' | 'pglite';

/**
 * Which database the API tests run on: the run's PostgreSQL (default), or with TEST_BACKEND=pglite
 * the embedded mode's PGlite, in memory and migrated (see createTestPglite and jest.config.ts).
 */
export const testBackend = (): TestBackend => (process.env.TEST_BACKEND === 'pglite' ? 'pglite' : 'postgres');

const BACKEND_ENV: Record<TestBackend, Record<string, string | undefined>> = {
  postgres: {},
  pglite: { DATABASE_URL: undefined, DATA_DIR: 'memory://' },
};

let sharedPglite: Promise<Database> | undefined;

/**
 * The app's database when the test did not pass one: a PostgreSQL pool of its own, or the test
 * file's in-memory PGlite (createTestPglite), opened on first use and shared by the file's apps;
 * closeSharedTestDatabase ends the file's use of it.
 */
async function openDatabase(config: Config, logger: Logger): Promise<{ db: Database; owned: boolean }> {
  if (config.databaseUrl) return { db: await createDatabase(config, logger), owned: true };
  sharedPglite ??= createTestPglite(config);
  return { db: await sharedPglite, owned: false };
}

/** Closes the test file's shared PGlite, if one was started (an afterAll of the pglite project). */
export async function closeSharedTestDatabase(): Promise<void> {
  const db = sharedPglite;
  sharedPglite = undefined;
  await (await db)?.close();
}

export interface TestApp {
  /** The app behind the OpenAPI conformance checks: what tests send requests to. */
  app: Express;
  /** The API app itself (its router stack, e.g. for route discovery). */
  api: Express;
  ctx: AppContext;
  request: () => supertest.Agent;
  close(): Promise<void>;
}

/**
 * An app on the run's PostgreSQL database (made by the jest global setup), or on PGlite (testBackend),
 * and real Redis.
 * Without `ingestion`, v2 creates embed in the request. `backend` pins the database for tests of
 * one mode (split mode needs PostgreSQL), whatever TEST_BACKEND says.
 * `env` overrides environment variables for this app only, e.g. { RATE_LIMIT_PER_MINUTE: '5' }.
 * `metricsRegistry`: the registry the app's /metrics serves (one a test's query cache also counts into).
 */
export async function createTestApp(
  env: Record<string, string | undefined> = {},
  opts: { db?: Database; redis?: RedisConnection | null; embedder?: Embedder; ingestion?: boolean; backend?: TestBackend; metricsRegistry?: Registry } = {},
): Promise<TestApp> {
  // Generous limits unless a test sets its own: rate limiting has tests of its own.
  const config: Config = loadConfig({ ...process.env, ...RELAXED_LIMITS, ...BACKEND_ENV[opts.backend ?? testBackend()], ...env });
  const logger = createLogger('api', config);
  const { db, owned } = opts.db ? { db: opts.db, owned: false } : await openDatabase(config, logger);
  const redis = opts.redis === null ? undefined : opts.redis ?? (config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined);
  if (redis) {
    // Connected, or its first attempt failed (a test's unreachable Redis): not 3 s of waiting for nothing.
    let failed = false;
    const onError = () => void (failed = true);
    redis.client.on('error', onError);
    await waitFor(() => redis.isReady() || failed, 3000).catch(() => undefined);
    redis.client.off('error', onError);
  }
  // The process as server.ts builds it, on the test's database and Redis, with the lexical embedder
  // (deterministic and instant; the transformers path has tests of its own). With `ingestion`, v2
  // creates go to the embedding worker (queue or in-process, by config); webhook deliveries stay in
  // the outbox for the tests to read. DATABASE_REPLICA_URLS in `env`: reads served by replicas.
  const started = await start(apiRole(config), config, {
    standalone: false,
    importRules: importRecordRules,
    db,
    redis: redis ?? null,
    embedder: opts.embedder ?? new LexicalEmbedder(),
    registry: opts.metricsRegistry,
    work: { embedding: opts.ingestion ?? false, webhooks: false },
  });
  const ctx = started.ctx;
  // Every response of every integration test is checked against the OpenAPI document.
  const api = createApp(ctx);
  const { app, violations } = withConformanceChecks(api.app);
  return {
    app,
    api: api.app,
    ctx,
    request: () => supertest.agent(app),
    async close() {
      // The app's timers (load gauge, rate limiters): left running, they would keep this app, and its test file's modules, alive.
      await api.close();
      await started.stop();
      if (!opts.redis) await redis?.close();
      if (owned) await db.close();
      if (violations.length) throw new Error(`responses that do not match the OpenAPI document:\n${[...new Set(violations)].join('\n')}`);
    },
  };
}

let counter = 0;
/** A unique email for this run. */
export const uniqueEmail = (label = 'user') => `${label}.${Date.now().toString(36)}.${++counter}@example.com`;

export interface TestAccount {
  accountId: string;
  /** A key with every scope. */
  key: string;
  keyWith(scopes: Scope[], opts?: { expiresAt?: Date; agentId?: string }): Promise<string>;
}

/** A fresh account with a full-scope key, made directly (no scrypt): tests stay fast and independent. */
export async function createAccount(ctx: AppContext): Promise<TestAccount> {
  const account = await accountsRepository.insert(ctx.db.knex, { email: uniqueEmail('acct'), passwordHash: null });
  if (!account) throw new Error('could not create test account');
  const keyWith = async (scopes: Scope[], opts: { expiresAt?: Date; agentId?: string } = {}) =>
    (await issueApiKey(ctx, account.id, { name: 'test', scopes, expiresAt: opts.expiresAt, agentId: opts.agentId })).key;
  return { accountId: account.id, key: await keyWith(['read', 'write', 'delete', 'admin']), keyWith };
}

/** An admin key of the operator's account (the oldest; made first when the store has none): for service-wide routes. */
export async function operatorKey(ctx: AppContext): Promise<string> {
  const operator = (await accountsRepository.operatorId(ctx.db.knex)) ?? (await createAccount(ctx)).accountId;
  return (await issueApiKey(ctx, operator, { name: 'operator', scopes: ['admin'] })).key;
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Asserts the spec's error envelope; returns the body for further checks. */
export function expectError(res: supertest.Response, status: number, type: string) {
  expect({ status: res.status, type: res.body.type }).toEqual({ status, type });
  expect(res.body.code).toBe(status);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
  if (type === 'validation_error') {
    expect(res.body.message).toBe('Request validation failed');
    expect(Array.isArray(res.body.details)).toBe(true);
  } else {
    expect(res.body).not.toHaveProperty('details');
  }
  return res.body as { type: string; message: string; details?: Array<{ field: string; message: string }> };
}
