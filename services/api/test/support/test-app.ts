import type { Express } from 'express';
import supertest from 'supertest';
import { createLogger, loadConfig, Config } from '@ams/core';
import { accountsRepository, createDatabase, Database } from '@ams/db';
import { Embedder, LexicalEmbedder } from '@ams/embeddings';
import { createApp } from '../../src/app';
import type { AppContext } from '../../src/context';
import { createIngestion } from '../../src/lib/ingestion';
import { connectRedis, RedisConnection } from '../../src/lib/redis';
import { issueApiKey } from '../../src/services/api-keys.service';
import type { Scope } from '../../src/lib/scopes';
import { WARM_UP_PATH, withConformanceChecks } from './openapi-conformance';

const RELAXED_LIMITS = {
  RATE_LIMIT_PER_MINUTE: '100000',
  UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '100000',
  REGISTER_RATE_LIMIT_PER_MINUTE: '100000',
};

export interface TestApp {
  app: Express;
  ctx: AppContext;
  request: () => supertest.Agent;
  close(): Promise<void>;
}

/**
 * An app on the run's PostgreSQL database (made by the jest global setup) and real Redis.
 * Without `ingestion`, v2 creates embed in the request.
 * `env` overrides environment variables for this app only, e.g. { RATE_LIMIT_PER_MINUTE: '5' }.
 */
export async function createTestApp(
  env: Record<string, string | undefined> = {},
  opts: { db?: Database; redis?: RedisConnection | null; embedder?: Embedder; ingestion?: boolean } = {},
): Promise<TestApp> {
  // Generous limits unless a test sets its own: rate limiting has tests of its own.
  const config: Config = loadConfig({ ...process.env, ...RELAXED_LIMITS, ...env });
  const logger = createLogger('api', config);
  const db = opts.db ?? (await createDatabase(config));
  const redis = opts.redis === null ? undefined : opts.redis ?? (config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined);
  if (redis) await waitFor(() => redis.isReady(), 3000).catch(() => undefined);
  // The lexical embedder: deterministic and instant; the transformers path has tests of its own.
  const ctx: AppContext = { config, logger, db, redis, embedder: opts.embedder ?? new LexicalEmbedder() };
  // With `ingestion`, v2 creates go to the embedding worker as in server.ts (queue or in-process, by config).
  const ingestion = opts.ingestion ? createIngestion(config, ctx) : undefined;
  ctx.ingestion = ingestion;
  // Every response of every integration test is checked against the OpenAPI document.
  const { app, violations } = withConformanceChecks(createApp(ctx));
  // The validator loads the document on its first request: done now, so no test's first request waits on it.
  await supertest(app).get(WARM_UP_PATH).expect(204);
  return {
    app,
    ctx,
    request: () => supertest.agent(app),
    async close() {
      await ingestion?.close();
      if (!opts.redis) await redis?.close();
      if (!opts.db) await db.close();
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

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Polls until `check` is true; for conditions that become true asynchronously (never a fixed sleep). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5000, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

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
