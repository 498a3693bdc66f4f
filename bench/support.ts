import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createLogger, loadConfig } from '@ams/core';
import { accountsRepository, createDatabase, createPostgresDatabase, dropPostgresDatabase, migrateLatest, Database } from '@ams/db';
import { LexicalEmbedder, Embedder } from '@ams/embeddings';
import { type AppContext, createApp, importRecordRules, issueApiKey } from '@ams/api';
import { apiRole, connectRedis, start } from '@ams/runtime';

export const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

export function percentiles(samples: number[]): { p50: number; p95: number; p99: number; mean: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  const round = (n: number) => Math.round(n * 100) / 100;
  return { p50: round(at(0.5)), p95: round(at(0.95)), p99: round(at(0.99)), mean: round(s.reduce((a, b) => a + b, 0) / s.length) };
}

/** A deterministic PRNG so every run loads the same data. */
export function prng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const TOPICS = 'postgres redis kafka kubernetes deploy latency cache index vacuum queue worker embedding search agent session project decision pattern webhook retry timeout memory cluster replica backup migration schema token budget prompt model vector graph entity user preference alert dashboard incident runbook billing invoice customer onboarding'.split(' ');
const VERBS = 'tuned fixed broke improved measured reviewed rolled restarted scaled documented removed added'.split(' ');

export function sentence(rand: () => number): string {
  const pick = (list: string[]) => list[Math.floor(rand() * list.length)]!;
  return `The ${pick(TOPICS)} ${pick(TOPICS)} was ${pick(VERBS)} after the ${pick(TOPICS)} ${pick(TOPICS)} ${pick(VERBS)} near ${pick(TOPICS)}.`;
}

export interface BenchServer {
  baseUrl: string;
  /** The throwaway database, for worker processes to share. */
  databaseUrl: string;
  key: string;
  accountId: string;
  ctx: AppContext;
  server: import('node:http').Server;
  close(): Promise<void>;
}

/**
 * The real API on a loopback port, over a throwaway database dropped on close. With `redisUrl`,
 * split mode: v2 creates are queued (under a fresh key prefix) for worker processes. With
 * `embedded`, PGlite in a temporary directory and the in-process embedding worker (`npm start`'s mode).
 * `instrument` sees the context before the app is built (the profiler wraps the embedder and Redis
 * its requests use).
 * `inProcessModel`: the bench runs the bare model (and bare SQL) in this process too, on the
 * server's model thread and event loop between its requests; overload shedding (event-loop delay,
 * deadline) could then refuse the bench's own requests, so it is off (bench:load keeps it: shedding
 * is what it measures).
 */
export async function startBenchServer(
  embedder: Embedder = new LexicalEmbedder(),
  opts: { redisUrl?: string; embedded?: boolean; inProcessModel?: boolean; instrument?: (ctx: AppContext) => void } = {},
): Promise<BenchServer> {
  const dbName = `ams_bench_${Date.now().toString(36)}_${crypto.randomBytes(2).toString('hex')}`;
  const url = opts.embedded ? undefined : await createPostgresDatabase(ADMIN_URL, dbName);
  const dataDir = opts.embedded ? fs.mkdtempSync(path.join(os.tmpdir(), 'ams-bench-')) : undefined;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: url ?? '',
    DATA_DIR: dataDir ?? './data',
    REDIS_URL: opts.redisUrl ?? '',
    REDIS_KEY_PREFIX: dbName,
    RATE_LIMIT_PER_MINUTE: '100000000',
    NODE_ENV: 'test',
    ...(opts.inProcessModel ? { MAX_EVENT_LOOP_DELAY_MS: '0', REQUEST_TIMEOUT_MS: '0' } : {}),
  };
  if (opts.embedded) delete env.DATABASE_URL;
  const config = loadConfig(env);
  const db: Database = await createDatabase(config);
  await migrateLatest(db.knex);
  const logger = createLogger('bench', config);
  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined;
  // The process as server.ts starts it, on the bench's database, Redis and model; deliveries stay in the outbox.
  const started = await start(apiRole(config), config, { standalone: false, importRules: importRecordRules, db, redis: redis ?? null, embedder, work: { webhooks: false } });
  const ctx = started.ctx;
  opts.instrument?.(ctx);
  const api = createApp(ctx);
  const server = api.app.listen(0, '127.0.0.1');
  // Bench loops pause between requests (exact scans, model calls) longer than Node's 5 s default.
  server.keepAliveTimeout = 120_000;
  await new Promise((r) => server.once('listening', r));
  const account = (await accountsRepository.insert(db.knex, { email: `${dbName}@bench.local`, passwordHash: null }))!;
  const { key } = await issueApiKey(ctx, account.id, { name: 'bench', scopes: ['read', 'write', 'delete', 'admin'] });
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    databaseUrl: url ?? '',
    key,
    accountId: account.id,
    ctx,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await api.close();
      await started.stop();
      if (redis?.isReady()) {
        for await (const k of redis.client.scanIterator({ MATCH: `${dbName}:*`, COUNT: 500 })) await redis.client.del(k);
      }
      await redis?.close();
      await db.close();
      if (url) await dropPostgresDatabase(ADMIN_URL, dbName);
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Node's http client on kept-alive sockets (what bench:load uses too): fetch's per-request cost is
 * several times larger, and the client shares this process's event loop with the service it times.
 */
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function post(server: BenchServer, path: string, body: unknown, retried = false): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.baseUrl}${path}`, {
      method: 'POST',
      agent: keepAlive,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}`, 'content-length': Buffer.byteLength(payload) },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', (err: Error & { code?: string }) => {
      // A kept-alive socket the server closed just as it was reused: the request never reached it.
      if (!retried && err.code === 'ECONNRESET') resolve(post(server, path, body, true));
      else reject(err);
    });
    req.end(payload);
  });
}

/**
 * The HNSW index that serves memories' vectors of `dims` dimensions (migration 020 makes one per
 * size on a cast of the dimensionless column), so a bulk load can drop it and build it again after.
 */
export async function memoriesHnswIndex(db: Database['knex'], dims = 384): Promise<{ name: string; def: string }> {
  const { rows } = await db.raw(
    `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memories' AND indexdef LIKE '%USING hnsw%' AND indexdef LIKE ?`,
    [`%vector(${dims})%`],
  );
  const row = (rows as Array<{ indexname: string; indexdef: string }>)[0];
  if (!row) throw new Error(`no HNSW index on memories for ${dims}-dimensional vectors`);
  return { name: row.indexname, def: row.indexdef };
}

/** pgvector's own top-10 as the index serves it (its cast and size predicate, default settings): the bare limit. Bind the vector as the service does (VectorParam). */
export const bareTopK = (dims: number) =>
  `SELECT id FROM memories WHERE account_id = ? AND vector_dims(embedding) = ${dims} ORDER BY embedding::vector(${dims}) <=> ?::vector LIMIT 10`;
