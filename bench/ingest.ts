/**
 * The ingestion figures of `npm run bench`: v1 create and v2 ack latency, the v2 drain by one
 * worker, length-sorted against naive batches, and v2 time to ready on an idle worker, each beside
 * the bare model or statement in the same run; then where a create's time goes, statement by statement.
 */
import type { ChildProcess } from 'node:child_process';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { agentsRepository, type BoundVector } from '@ams/db';
import { VectorParam } from '@ams/embeddings';
import { startService, stopProcess, waitFor } from '@ams/testing';
import type { Corpus } from './corpus';
import { batchedRate, BenchModel } from './model';
import { ms, rate, Table, times } from './report';
import { BenchServer, percentiles, post } from './support';

/** What a statement of a create does, from its SQL. */
function classify(sql: string): string {
  const s = sql.toLowerCase();
  if (s.includes('api_keys')) return 'auth (API key lookup)';
  if (s.startsWith('with mem as (insert into "memories"')) return 'memory + entities + links + agent activity + outbox (one statement)';
  if (s.includes('webhook_deliveries')) return 'event outbox write';
  if (s.includes('entit')) return 'entity linking';
  if (s.startsWith('update "agents"')) return 'agent last_active_at';
  if (s.includes('"agents"') || s.includes('"sessions"') || s.includes('"projects"')) return 'agent / session / project resolution';
  if (s.includes('pg_advisory')) return 'dedup advisory lock';
  if (s.startsWith('insert into "memories"')) return 'memory INSERT';
  if (s.includes('embedding_batches') || s.includes('embedding_status')) return 'v2 completion estimate';
  return `other: ${s.slice(0, 60)}`;
}

type Span = [from: number, to: number];
/** One timed request: its span, and its statements' and the collector's pauses inside it. */
interface Timed {
  span: Span;
  sql: Array<{ kind: string; ms: number }>;
  gc: number;
}

const overlap = (a: Span, spans: Span[]) => spans.reduce((sum, b) => sum + Math.max(0, Math.min(a[1], b[1]) - Math.max(a[0], b[0])), 0);

/**
 * Where a create's time goes: every SQL statement by what it does, and the model's calls. Requests
 * are sequential, so whatever runs belongs to the one request being timed. A statement in flight
 * while the model runs (on its own thread) overlaps it, so it is charged only its time outside the
 * model's: what the request waits for after the embed.
 */
class CreateProfiler {
  private readonly started = new Map<string, number>();
  private statements: Array<{ kind: string; span: Span }> = [];
  private model: Span[] = [];
  private on = false;
  private readonly runs = new Map<string, { requests: number; elapsed: number; model: number; sql: Map<string, number>; each: Timed[] }>();
  /** The garbage collector's pauses (this process runs the API and the bench's client). */
  private readonly gcs: Span[] = [];

  constructor(server: BenchServer) {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) this.gcs.push([e.startTime, e.startTime + e.duration]);
    }).observe({ entryTypes: ['gc'] });
    const knex = server.ctx.db.knex;
    knex.on('query', (q: { __knexQueryUid: string }) => this.on && this.started.set(q.__knexQueryUid, performance.now()));
    knex.on('query-response', (_r: unknown, q: { __knexQueryUid: string; sql: string }) => {
      const t0 = this.started.get(q.__knexQueryUid);
      if (t0 === undefined) return;
      this.started.delete(q.__knexQueryUid);
      this.statements.push({ kind: classify(q.sql), span: [t0, performance.now()] });
    });
    const embedder = server.ctx.embedder as { embed: (texts: string[]) => Promise<Float32Array[]> };
    const embed = embedder.embed.bind(embedder);
    embedder.embed = async (texts) => {
      const t0 = performance.now();
      try {
        return await embed(texts);
      } finally {
        if (this.on) this.model.push([t0, performance.now()]);
      }
    };
  }

  async time<T>(label: string, fn: () => Promise<T>): Promise<T> {
    this.statements = [];
    this.model = [];
    this.on = true;
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      this.on = false;
      const span: Span = [t0, performance.now()];
      const run = this.runs.get(label) ?? { requests: 0, elapsed: 0, model: 0, sql: new Map<string, number>(), each: [] };
      run.requests++;
      run.elapsed += span[1] - span[0];
      run.each.push({ span, sql: this.statements.map(({ kind, span: s }) => ({ kind, ms: s[1] - s[0] })), gc: overlap(span, this.gcs) });
      run.model += this.model.reduce((sum, [a, b]) => sum + b - a, 0);
      for (const { kind, span } of this.statements) run.sql.set(kind, (run.sql.get(kind) ?? 0) + span[1] - span[0] - overlap(span, this.model));
      this.runs.set(label, run);
    }
  }

  report(label: string, title: string): string {
    const run = this.runs.get(label);
    if (!run) return '';
    const per = (v: number) => (v / run.requests).toFixed(2).padStart(8);
    const sql = [...run.sql.values()].reduce((a, b) => a + b, 0);
    const lines = [`${title} (${run.requests} requests, mean ms per request; client round trip ${(run.elapsed / run.requests).toFixed(1)} ms):`];
    if (run.model > 0) lines.push(`  ${per(run.model)}  model (the embed)`);
    for (const [k, v] of [...run.sql].sort((a, b) => b[1] - a[1])) lines.push(`  ${per(v)}  SQL: ${k}`);
    lines.push(`  ${per(run.elapsed - run.model - sql)}  the rest: BEGIN/COMMIT, HTTP, joi, JSON, JavaScript`);
    return lines.join('\n');
  }

  /** The `n` slowest requests under `label`: each one's statements and garbage-collection pauses, and what is left. */
  slowest(label: string, n: number): string {
    const each = [...(this.runs.get(label)?.each ?? [])].sort((a, b) => b.span[1] - b.span[0] - (a.span[1] - a.span[0])).slice(0, n);
    const lines = each.map(({ span, sql, gc }) => {
      const elapsed = span[1] - span[0];
      const statements = sql.map((q) => `${q.kind} ${q.ms.toFixed(1)}`).join(', ');
      const inSql = sql.reduce((sum, q) => sum + q.ms, 0);
      return `  ${elapsed.toFixed(1).padStart(6)} ms: SQL ${inSql.toFixed(1)} (${statements}); GC pauses ${gc.toFixed(1)}; the rest ${(elapsed - inSql - gc).toFixed(1)}`;
    });
    return [`The ${n} slowest of them:`, ...lines].join('\n');
  }
}

/**
 * Adds the ingestion rows to `table`; returns where a v1 create's and a v2 ack's time goes.
 * `samples`: v1 creates (and, up to 20, v2 times to ready); `acks`: v2 acks, then the backlog one
 * worker drains (a p99 of 120 acks is their second-highest; of 500, their fifth).
 */
export async function ingestFigures(server: BenchServer, model: BenchModel, corpus: Corpus, table: Table, config: string, samples: number, acks: number, embedded: boolean): Promise<string> {
  const db = server.ctx.db.knex;
  const profiler = new CreateProfiler(server);
  // Texts not in the store: the corpus' tail.
  const tail = corpus.docs.slice(corpus.paragraphs - samples - acks, corpus.paragraphs);
  const single = tail.slice(0, samples);
  const bare: number[] = [];
  const bareInsert: number[] = [];
  const create: number[] = [];
  // The v1 creates' agent; the bare INSERTs below (v1 and v2) go under it too, soft-deleted at once so nothing else sees them.
  const agentId = (await agentsRepository.ensureByName(db, server.accountId, 'ingest')).id;
  const bareRow = (content: string) => ({ account_id: server.accountId, agent_id: agentId, content, memory_type: 'fact', tier: 'warm', deleted_at: db.fn.now() });
  for (const content of single) {
    let t0 = performance.now();
    const [vector] = await model.embedder.embed([content]);
    bare.push(performance.now() - t0);
    // The store's floor: one INSERT of the row with its vector (the HNSW insert), bound as the service binds it.
    t0 = performance.now();
    const embedding: BoundVector = new VectorParam(vector!);
    await db('memories').insert({ ...bareRow(content), embedding, embedding_model: model.embedder.model, embedding_status: 'ready' });
    bareInsert.push(performance.now() - t0);
    t0 = performance.now();
    const res = await profiler.time('v1', () => post(server, '/v1/memories', { content, agent_id: 'ingest' }));
    create.push(performance.now() - t0);
    if (res.status >= 300) throw new Error(`v1 create failed: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  }
  const bareSingle = { stats: percentiles(bare) };
  const insertWithVector = percentiles(bareInsert);
  const v1 = percentiles(create);
  table.add(
    config,
    'v1 create p50',
    `one document embed ${ms(bareSingle.stats.p50)} (+ INSERT with its vector ${ms(insertWithVector.p50)})`,
    ms(v1.p50),
    `${times(v1.p50 / bareSingle.stats.p50)} (+${ms(v1.p50 - bareSingle.stats.p50)}; ${times(v1.p50 / (bareSingle.stats.p50 + insertWithVector.p50))} embed + INSERT)`,
  );

  // v2 acks over a backlog (split: no worker yet, so the ack is the request alone), then one worker drains it.
  const backlog = tail.slice(samples, samples + acks);
  const ackTimes: number[] = [];
  const inserts: number[] = [];
  const ids: string[] = [];
  for (const content of backlog) {
    // The bare limit: one INSERT of the same row.
    let t0 = performance.now();
    await db('memories').insert({ ...bareRow(content), embedding_status: 'pending' });
    inserts.push(performance.now() - t0);
    t0 = performance.now();
    const res = await profiler.time('v2', () => post(server, '/v2/memories', { content, agent_id: 'ingest-v2' }));
    ackTimes.push(performance.now() - t0);
    if (res.status !== 202) throw new Error(`v2 create failed: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    ids.push(res.body.id);
  }
  const ack = percentiles(ackTimes);
  const ins = percentiles(inserts);
  table.add(config, `v2 ack p50 / p99 (${acks} acks)`, `one INSERT ${ms(ins.p50)} / ${ms(ins.p99)}`, `${ms(ack.p50)} / ${ms(ack.p99)}`, embedded ? `${times(ack.p99 / ins.p99)} (p99; in-process worker busy meanwhile)` : `${times(ack.p99 / ins.p99)} (p99; no worker running yet)`);

  let worker: ChildProcess | undefined;
  try {
    if (!embedded) {
      worker = startService('services/embedding-worker/src/main.ts', {
        ...model.env,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        DATABASE_URL: server.databaseUrl,
        REDIS_URL: server.ctx.config.redisUrl ?? '',
        REDIS_KEY_PREFIX: server.ctx.config.redisKeyPrefix,
        EMBEDDING_WORKER_METRICS_PORT: '0',
      });
    }
    const pending = async (list: string[]) => Number((await db('memories').whereIn('id', list).whereNot('embedding_status', 'ready').count<{ count: string }[]>('* as count'))[0]!.count);
    await waitFor(async () => (await pending(ids)) === 0, 30 * 60_000, 'v2 backlog ready');
    const [row] = await db('memories').whereIn('id', ids).select(db.raw('extract(epoch from (max(updated_at) - min(embedding_started_at))) AS seconds'));
    const drain = ids.length / Number(row.seconds);
    const naive = await batchedRate(model.embedder, backlog, model.batchSize, 'naive');
    const sorted = await batchedRate(model.embedder, backlog, model.batchSize, 'sorted');
    table.add(config, `v2 drain, one ${embedded ? 'in-process ' : ''}worker (${backlog.length} queued)`, `model, naive batches of ${model.batchSize}: ${rate(naive)}`, rate(drain), times(drain / naive));
    table.add(config, `length-sorted vs naive batches of ${model.batchSize} (bare model, same texts)`, `naive ${rate(naive)}`, `sorted ${rate(sorted)}`, times(sorted / naive));

    // Time to ready, one at a time on an idle worker (database clock: created → ready).
    const ready: number[] = [];
    const bareReady: number[] = [];
    for (const content of single.slice(0, Math.min(20, samples))) {
      const t0 = performance.now();
      await model.embedder.embed([`${content} (v2)`]);
      bareReady.push(performance.now() - t0);
      const res = await post(server, '/v2/memories', { content: `${content} (v2)`, agent_id: 'ingest-v2' });
      await waitFor(async () => (await pending([res.body.id])) === 0, 60_000, 'v2 memory ready');
      const [r] = await db('memories').where({ id: res.body.id }).select(db.raw('extract(epoch from (updated_at - created_at)) * 1000 AS ms'));
      ready.push(Number(r.ms));
    }
    const bareTtr = percentiles(bareReady);
    const ttr = percentiles(ready);
    table.add(config, 'v2 time to ready p50, idle worker', `one document embed ${ms(bareTtr.p50)}`, ms(ttr.p50), `${times(ttr.p50 / bareTtr.p50)} (+${ms(ttr.p50 - bareTtr.p50)})`);
  } finally {
    await stopProcess(worker, 'SIGTERM');
  }
  const profiles = [`${profiler.report('v1', "Where a v1 create's time goes")}\n  (bare model, one document, same texts: mean ${ms(bareSingle.stats.mean)})`];
  // Embedded mode's in-process worker runs statements of its own during the acks.
  if (!embedded) profiles.push(`${profiler.report('v2', "Where a v2 ack's time goes (no worker running)")}\n${profiler.slowest('v2', 5)}`);
  return profiles.join('\n');
}

