/**
 * npm run bench:ingest [-- --n 1000 --workers 1,2 --concurrency 16 --embedder model|lexical]
 *
 * Ingestion throughput with the embedding model in the loop. By default the model is a BERT
 * encoder of all-MiniLM-L6-v2's exact shape with random weights (generated, never downloaded):
 * the same compute per token as the real model, run by @xenova/transformers like the real one.
 * Prints, from one run on one machine:
 *   - the bare model: memories/s embedding the texts directly, in batches of EMBEDDING_BATCH_SIZE;
 *   - v1: memories/s through POST /v1/memories/batch (100 a request, embedded in the request);
 *   - v2 drain: memories/s of N worker processes alone, over memories queued beforehand;
 *   - v2 end to end: memories/s from the first POST /v2/memories to the last memory ready with N
 *     worker processes, and p50/p99 time-to-ready (created → ready, database clock);
 * each service figure also as a ratio of the bare model's. Needs PostgreSQL with pgvector and Redis.
 */
import { performance } from 'node:perf_hooks';
import type { ChildProcess } from 'node:child_process';
import { loadConfig } from '@ams/core';
import { Embedder, LexicalEmbedder, TransformersEmbedder } from '@ams/embeddings';
import { arg, BenchServer, percentiles, post, prng, sentence, startBenchServer } from './support';
import { ensureGeneratedModel, startService, stopProcess, waitFor } from '@ams/testing';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

/** Memory-like texts of a few sentences (~60 tokens), deterministic. */
function texts(n: number, seed: number): string[] {
  const rand = prng(seed);
  return Array.from({ length: n }, (_, i) => `${sentence(rand)} ${sentence(rand)} ${sentence(rand)} (note ${seed}-${i})`);
}

async function bareModel(embedder: Embedder, corpus: string[], batchSize: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < corpus.length; i += batchSize) await embedder.embed(corpus.slice(i, i + batchSize));
  return corpus.length / ((performance.now() - t0) / 1000);
}

async function v1Batch(server: BenchServer, corpus: string[]): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < corpus.length; i += 100) {
    const res = await post(server, '/v1/memories/batch', { memories: corpus.slice(i, i + 100).map((content) => ({ content, agent_id: 'bench-v1' })) });
    if (res.status !== 200 || res.body.failed > 0) throw new Error(`batch failed: ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  return corpus.length / ((performance.now() - t0) / 1000);
}

/** POSTs every text to /v2/memories, `concurrency` requests at a time; returns the ids in order of acceptance. */
async function createV2(server: BenchServer, corpus: string[], concurrency: number): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < corpus.length) {
        const content = corpus[next++]!;
        const res = await post(server, '/v2/memories', { content, agent_id: 'bench-v2' });
        if (res.status !== 202 || res.body.job_id === null) throw new Error(`v2 create not queued: ${res.status} ${JSON.stringify(res.body)}`);
        ids.push(res.body.id);
      }
    }),
  );
  return ids;
}

async function allReady(server: BenchServer, ids: string[]): Promise<void> {
  const db = server.ctx.db.knex;
  await waitFor(
    async () => Number((await db('memories').whereIn('id', ids).whereNot('embedding_status', 'ready').count<{ count: string }[]>('* as count'))[0]!.count) === 0,
    30 * 60_000,
    'all v2 memories ready',
  );
}

/** The workers alone: memories queued beforehand, from the first claim to the last memory ready (database clock). */
async function drainRate(server: BenchServer, ids: string[]): Promise<number> {
  await allReady(server, ids);
  const [row] = await server.ctx.db.knex('memories')
    .whereIn('id', ids)
    .select(server.ctx.db.knex.raw('extract(epoch from (max(updated_at) - min(embedding_started_at))) AS seconds'));
  return ids.length / Number(row.seconds);
}

/** API and workers together: first POST to last memory ready, and each memory's time from created to ready. */
async function endToEnd(server: BenchServer, corpus: string[], concurrency: number) {
  const t0 = performance.now();
  const ids = await createV2(server, corpus, concurrency);
  const acceptedPerSecond = corpus.length / ((performance.now() - t0) / 1000);
  await allReady(server, ids);
  const perSecond = corpus.length / ((performance.now() - t0) / 1000);
  const db = server.ctx.db.knex;
  const rows: Array<{ ms: number }> = await db('memories').whereIn('id', ids).select(db.raw('extract(epoch from (updated_at - created_at)) * 1000 AS ms'));
  return { perSecond, acceptedPerSecond, readyMs: percentiles(rows.map((r) => Number(r.ms))) };
}

async function main(): Promise<void> {
  const n = arg('n', 1_000);
  const concurrency = arg('concurrency', 16);
  const workerCounts = option('workers', '1,2').split(',').map(Number);
  const useModel = option('embedder', 'model') === 'model';
  const config = loadConfig();
  const batchSize = config.embeddingWorker.batchSize;

  const generated = useModel ? ensureGeneratedModel({ full: true }) : undefined;
  const embedderEnv: Record<string, string> = generated
    ? { EMBEDDING_PROVIDER: 'transformers', MODEL_DIR: generated.modelDir, EMBEDDING_MODEL: generated.model }
    : { EMBEDDING_PROVIDER: 'lexical' };
  const embedder: Embedder = generated
    ? new TransformersEmbedder({ model: generated.model, modelDir: generated.modelDir, allowRemoteModels: false, quantized: config.embedding.quantized })
    : new LexicalEmbedder();
  if (embedder instanceof TransformersEmbedder) await embedder.load();
  console.log(`embedder: ${useModel ? "all-MiniLM-L6-v2's shape, random weights, quantized=" + config.embedding.quantized : 'lexical'}; n=${n}, batch size ${batchSize}`);

  await bareModel(embedder, texts(batchSize, 1), batchSize); // warm-up
  const bare = await bareModel(embedder, texts(n, 2), batchSize);
  console.log(`bare model             ${bare.toFixed(1)} memories/s`);

  for (const workers of workerCounts) {
    const server = await startBenchServer(embedder, { redisUrl: REDIS_URL });
    const children: ChildProcess[] = [];
    try {
      if (workers === workerCounts[0]) {
        const v1 = await v1Batch(server, texts(n, 3));
        console.log(`v1 batch (in request)  ${v1.toFixed(1)} memories/s  (${(v1 / bare).toFixed(2)} × bare model)`);
      }
      const queued = await createV2(server, texts(n, 4), concurrency);
      for (let i = 0; i < workers; i++) {
        children.push(
          startService('services/embedding-worker/src/main.ts', {
            ...embedderEnv,
            NODE_ENV: 'production',
            LOG_LEVEL: 'warn',
            DATABASE_URL: server.databaseUrl,
            REDIS_URL: REDIS_URL,
            REDIS_KEY_PREFIX: server.ctx.config.redisKeyPrefix,
            EMBEDDING_WORKER_METRICS_PORT: '0',
          }),
        );
      }
      const drain = await drainRate(server, queued);
      const label = `${workers} worker${workers > 1 ? 's' : ' '}`;
      console.log(`v2 drain, ${label}      ${drain.toFixed(1)} memories/s  (${(drain / bare).toFixed(2)} × bare model; the workers alone, ${n} queued beforehand)`);
      const e2e = await endToEnd(server, texts(n, 5), concurrency);
      console.log(
        `v2 end to end, ${label} ${e2e.perSecond.toFixed(1)} memories/s  (${(e2e.perSecond / bare).toFixed(2)} × bare model; API and workers on one machine); ` +
          `202s at ${e2e.acceptedPerSecond.toFixed(0)}/s; time to ready ms p50 ${e2e.readyMs.p50} p99 ${e2e.readyMs.p99}`,
      );
    } finally {
      await Promise.all(children.map((c) => stopProcess(c, 'SIGTERM')));
      await server.close();
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
