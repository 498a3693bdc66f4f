/**
 * npm run bench:load [-- --memories 10000 --seconds 6 --levels 1,4,8,16 --mode split|embedded --embed-seconds 60]
 *
 * Many agents searching at once. The API runs in a child process of its own (its own event loop,
 * a throwaway store of corpus documents with their vectors, the model of all-MiniLM-L6-v2's shape,
 * the load-shedding bounds of the environment: MAX_IN_FLIGHT_REQUESTS etc.). Every timed search uses
 * a query the server has not seen (the corpus' package descriptions, each used once in the run), so
 * the query cache never answers. Measured:
 * - closed loop at 1, 4, 8 and 16 clients (each sends its next search when its answer came):
 *   accepted searches/s, 503s/s, p50/p99 of the accepted, the API main thread's CPU per request,
 *   beside the bare pipeline at the same
 *   concurrency in this process (split mode): the same model, concurrent queries' embeddings batched
 *   together, then pgvector's top-10 on 16 connections — no HTTP, no service; and the same pipeline
 *   behind the barest node:http server in a process of its own (what HTTP alone costs here);
 * - the CPU each request cost in each step, by who spent it (/proc: server, bench, PostgreSQL, Redis);
 * - open loop at 1× and 2× the rate the two most crowded levels reached (requests evenly spaced
 *   whatever the answers do; latency counted from when a request was due): the 2× accepted p99 as a
 *   multiple of the 1-client p99 (goal ≤ 3×) and the 503s' p99 (goal < 50 ms);
 * - fair admission (load-fairness.ts): a light tenant beside a flooding one, and bursts.
 */
import { ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { loadConfig } from '@ams/core';
import { issueApiKey } from '@ams/api';
import { accountsRepository, createDatabase, type BoundVector, type Database } from '@ams/db';
import { VectorParam } from '@ams/embeddings';
import { CORPUS_MISSING, loadCorpus } from './corpus';
import { BenchModel, corpusKey, loadBenchModel, VectorBank } from './model';
import { seedStore } from './seed';
import { CPU_GROUPS, cpuByGroup, cpuPerRequest } from './proc-cpu';
import { arg, bareTopK, percentiles, startBenchServer, type BenchServer } from './support';
import { closedLoop, openLoop, search, UnseenQueries, type Run, type Target } from './load-loops';
import { bursts, twoTenants, type StepWindow } from './load-fairness';
import { recordTrace, reportTrace } from './load-trace';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}


/** The child: the API over a seeded store, its address on stdout's first line. */
async function serve(): Promise<void> {
  const embedded = option('mode', 'split') === 'embedded';
  const corpus = loadCorpus()!;
  const model = await loadBenchModel();
  const server = await startBenchServer(model.embedder, { redisUrl: embedded ? undefined : REDIS_URL, embedded });
  const bank = new VectorBank(model.embedder, corpusKey(corpus.docs));
  const light = await lightTenant(server);
  const lightMemories = Math.min(arg('memories', 10_000), arg('light-memories', 1_000));
  const { fromModel, jittered } = await seedStore(server, corpus, bank, arg('memories', 10_000), model.embedder.model, model.embedder.dimensions, [
    { accountId: light.accountId, n: lightMemories },
  ]);
  const seeded = `${fromModel} rows with bare-model vectors, ${jittered} with jittered copies of them; a second account with ${lightMemories}`;
  const target: Target = { baseUrl: server.baseUrl, key: server.key, databaseUrl: server.databaseUrl, accountId: server.accountId, seeded, light };
  process.stdout.write(JSON.stringify(target) + '\n');
  const writeTrace = process.env.BENCH_TRACE ? recordTrace(server.server, light.key, process.env.BENCH_TRACE) : undefined;
  const stop = () =>
    void server.close().then(() => {
      writeTrace?.();
      process.exit(0);
    });
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** A second account beside the bench's, with a key of its own. */
async function lightTenant(server: BenchServer): Promise<{ key: string; accountId: string }> {
  const account = (await accountsRepository.insert(server.ctx.db.knex, { email: `light-${server.accountId}@bench.local`, passwordHash: null }))!;
  const { key } = await issueApiKey(server.ctx, account.id, { name: 'light tenant', scopes: ['read', 'write'] });
  return { key, accountId: account.id };
}

/**
 * The other child: the bare pipeline behind the barest HTTP server (node:http, the body parsed, the
 * same batched model and top-10 as the bare step, the ids sent back as JSON). What HTTP alone costs
 * on this box: the ceiling of any service here that answers over HTTP, whatever it does.
 */
async function serveBare(): Promise<void> {
  const target = JSON.parse(option('target', '{}')) as Target;
  const model = await loadBenchModel();
  const pipeline = barePipeline(model, await createDatabase({ databaseUrl: target.databaseUrl, dataDir: '', dbPoolMax: 16 }), target.accountId);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { query } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query: string };
      void pipeline(query).then((rows) => {
        const body = JSON.stringify({ data: rows });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  process.stdout.write(JSON.stringify({ ...target, baseUrl: `http://127.0.0.1:${port}` }) + '\n');
  process.on('SIGTERM', () => process.exit(0));
}

/** The bare pipeline: concurrent queries' embeddings batched into one model call, then pgvector's top-10. */
function barePipeline(model: BenchModel, db: Database, accountId: string): (query: string) => Promise<unknown[]> {
  const embed = batchedModel((texts) => model.embedder.embedPadded(texts));
  return async (query) => {
    const v: BoundVector = new VectorParam(await embed(query));
    const { rows } = (await db.knex.raw(bareTopK(model.embedder.dimensions), [accountId, v])) as { rows: unknown[] };
    return rows;
  };
}

async function startChild(mode: '--serve' | '--serve-bare', extra: string[] = []): Promise<{ child: ChildProcess; target: Target }> {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', path.join(__dirname, 'load.ts'), mode, ...extra, ...process.argv.slice(2)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'error' },
  });
  const lines = readline.createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${mode} process exited (${code})`)));
  });
  return { child, target: JSON.parse(first) as Target };
}

/** Texts that arrive while the model is busy go in its next call together (what the service does). */
function batchedModel(embed: (texts: string[]) => Promise<Float32Array[]>) {
  let waiting: Array<{ text: string; resolve: (v: Float32Array) => void }> = [];
  let busy = false;
  const drain = async () => {
    busy = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      const vectors = await embed(batch.map((b) => b.text));
      batch.forEach((b, i) => b.resolve(vectors[i]!));
    }
    busy = false;
  };
  return (text: string) =>
    new Promise<Float32Array>((resolve) => {
      waiting.push({ text, resolve });
      if (!busy) void drain();
    });
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const rateOf = (r: Run) => r.accepted / r.seconds;

function row(cells: Array<string | number>, widths: number[]): string {
  return cells.map((c, i) => (typeof c === 'number' ? fmt(c) : c).padStart(widths[i]!)).join(' ');
}

type CpuSplit = ReturnType<typeof cpuPerRequest>;
/** CPU of the processes a search runs through (the rest of the box is left out: on a shared machine it is someone else's). */
const ownCpu = (c: CpuSplit) => c.total - c.other;

/**
 * The service against the bare pipeline over HTTP, each level in the same run, beside its goal:
 * accepted searches/s (≥ 0.85× at 8 and 16 clients), CPU per search of every process it runs
 * through (≤ 1.2×) and of the API's main thread (≤ +1.0 ms).
 */
function reportGoals(splits: Array<{ clients: number; steps: Array<[string, CpuSplit | undefined]> }>, byLevel: Map<number, Run>, httpRates: Map<number, number>): void {
  if (httpRates.size === 0) return;
  console.log('\nagainst the bare pipeline over HTTP, same run (goals: rate ≥ 0.85× at 8 and 16 clients; CPU per search ≤ 1.2×; API main thread ≤ +1.0 ms):');
  const gw = [8, 10, 10, 12, 12, 12, 14];
  console.log(row(['clients', 'rate', 'goal met', 'cpu all', 'goal met', 'main +ms', 'goal met'], gw));
  const met = (ok: boolean) => (ok ? 'yes' : 'no');
  for (const { clients, steps } of splits) {
    const service = steps.find(([n]) => n === 'service')?.[1];
    const overHttp = steps.find(([n]) => n === 'http bare')?.[1];
    const httpRate = httpRates.get(clients);
    if (!service || !overHttp || !httpRate) continue;
    const rate = rateOf(byLevel.get(clients)!) / httpRate;
    const cpu = ownCpu(service) / ownCpu(overHttp);
    const main = service['api main'] - overHttp['api main'];
    const rateGoal = clients >= 8 ? met(rate >= 0.85) : '-';
    console.log(row([clients, `${rate.toFixed(2)}×`, rateGoal, `${cpu.toFixed(2)}×`, met(cpu <= 1.2), `${main >= 0 ? '+' : ''}${fmt(main)}`, met(main <= 1.0)], gw));
  }
}

const BOUNDS = ['MAX_IN_FLIGHT_REQUESTS', 'MAX_QUEUED_REQUESTS', 'MAX_QUEUE_DELAY_MS', 'DB_POOL_MAX', 'EMBEDDING_THREAD', 'EMBEDDING_INTRA_OP_THREADS'];

async function main(): Promise<void> {
  if (process.argv.includes('--serve')) return serve();
  if (process.argv.includes('--serve-bare')) return serveBare();
  const seconds = arg('seconds', 6);
  const memories = arg('memories', 10_000);
  const mode = option('mode', 'split');
  const levels = option('levels', '1,4,8,16').split(',').map(Number);
  // The steps after the closed loop (which always runs: the others offer the rate it reached).
  const steps = new Set(option('steps', 'open,tenants,bursts').split(','));
  const tenantSeconds = Math.max(40, seconds);
  const corpus = loadCorpus();
  if (!corpus) {
    console.error(CORPUS_MISSING);
    process.exit(2);
  }
  // The bare model (this process) and the vector bank the child seeds from.
  const model = await loadBenchModel();
  const bank = new VectorBank(model.embedder, corpusKey(corpus.docs));
  await bank.extend(corpus.docs, memories, arg('embed-seconds', 60), model.batchSize);
  const queries = new UnseenQueries(corpus.queries.map((q) => q.text));
  const { child, target } = await startChild('--serve');
  const bareDb = mode === 'split' ? await createDatabase({ databaseUrl: target.databaseUrl, dataDir: '', dbPoolMax: 16 }) : undefined;
  const bare = bareDb ? barePipeline(model, bareDb, target.accountId) : undefined;
  const bareSearch = async (): Promise<number> => {
    await bare!(queries.next());
    return 200;
  };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  // Started inside the try: if it fails to start, the API's child is still stopped (and drops its database).
  let bareHttp: Awaited<ReturnType<typeof startChild>> | undefined;
  let tenantWindows: StepWindow[] | undefined;
  try {
    const httpBare = (bareHttp = bareDb ? await startChild('--serve-bare', ['--target', JSON.stringify(target)]) : undefined);
    const httpBareSearch = () => search(httpBare!.target, agent, queries.next());
    const config = loadConfig(process.env);
    const defaults: Record<string, string | number> = {
      MAX_IN_FLIGHT_REQUESTS: config.backpressure.maxInFlight,
      MAX_QUEUED_REQUESTS: config.backpressure.maxQueued,
      MAX_QUEUE_DELAY_MS: config.backpressure.maxQueueDelayMs,
      DB_POOL_MAX: config.dbPoolMax,
      EMBEDDING_THREAD: config.embedding.thread,
      EMBEDDING_INTRA_OP_THREADS: config.embedding.intraOpThreads,
    };
    const bounds = BOUNDS.map((k) => `${k}=${process.env[k] ?? `${defaults[k]} (default)`}`).join(' ');
    console.log(`${memories} memories (${target.seeded}), ${mode} mode; POST /v1/memories/search (semantic), every query unseen; ${seconds} s per step`);
    console.log(`API in its own process; ${bounds}`);
    console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at start\n`);
    // Warm-up: every path, unseen queries too.
    await closedLoop(2, 1, () => search(target, agent, queries.next()));
    if (bareDb) await closedLoop(2, 1, bareSearch);
    if (httpBare) await closedLoop(2, 1, httpBareSearch);

    // PostgreSQL's CPU is its backends on the bench's database: the cluster may serve others.
    const database = mode === 'split' ? new URL(target.databaseUrl).pathname.slice(1) : undefined;
    /** A closed loop at `clients`, and the CPU each request cost, by who spent it (the server being `serverPid`). */
    const step = async (clients: number, serverPid: number, one: () => Promise<number>) => {
      const before = cpuByGroup(serverPid, database);
      const run = await closedLoop(clients, seconds, one);
      return { run, cpu: cpuPerRequest(before, cpuByGroup(serverPid, database), run.accepted + run.shed) };
    };
    const widths = [8, 10, 7, 7, 8, 9, 10, 8, 8, 9, 10, 9];
    console.log(row(['clients', 'service/s', '503/s', 'p50 ms', 'p99 ms', 'cpu ms', 'bare/s', 'p50 ms', 'p99 ms', 'vs bare', 'http bare/s', 'vs http'], widths));
    const byLevel = new Map<number, Run>();
    const splits: Array<{ clients: number; steps: Array<[string, ReturnType<typeof cpuPerRequest> | undefined]> }> = [];
    const other = new Map<number, number>();
    const httpRates = new Map<number, number>();
    for (const clients of levels) {
      // Bare, bare over HTTP, then the service at each level, so the machine's load of the moment hits all alike.
      const bare = bareDb ? await step(clients, child.pid!, bareSearch) : undefined;
      const overHttp = httpBare ? await step(clients, httpBare.child.pid!, httpBareSearch) : undefined;
      if (overHttp) httpRates.set(clients, rateOf(overHttp.run));
      const service = await step(clients, child.pid!, () => search(target, agent, queries.next()));
      splits.push({ clients, steps: [['service', service.cpu], ['bare', bare?.cpu], ['http bare', overHttp?.cpu]] });
      byLevel.set(clients, service.run);
      for (const [s, n] of service.run.other) other.set(s, (other.get(s) ?? 0) + n);
      const sp = percentiles(service.run.latencies);
      const bp = bare ? percentiles(bare.run.latencies) : undefined;
      const versus = (r?: { run: Run }) => (r ? `${(rateOf(service.run) / rateOf(r.run)).toFixed(2)}×` : '-');
      console.log(
        row(
          [
            clients, rateOf(service.run), service.run.shed / service.run.seconds, sp.p50, sp.p99, service.cpu['api main'],
            bare ? rateOf(bare.run) : '-', bp?.p50 ?? '-', bp?.p99 ?? '-', versus(bare), overHttp ? rateOf(overHttp.run) : '-', versus(overHttp),
          ],
          widths,
        ),
      );
    }

    console.log('\nCPU ms per request, by who spent it (/proc): "api" is the server of the step (the bare pipeline runs in the bench process)');
    const cw = [8, 10, ...CPU_GROUPS.map((g) => Math.max(8, g.length + 1)), 7];
    console.log(row(['clients', 'step', ...CPU_GROUPS, 'total'], cw));
    for (const { clients, steps } of splits) {
      for (const [name, split] of steps) if (split) console.log(row([clients, name, ...CPU_GROUPS.map((g) => split[g]), split.total], cw));
    }
    reportGoals(splits, byLevel, httpRates);

    // The rate the two most crowded levels reached, the steps nearest in time: on a shared machine
    // the speed moves, and a rate measured minutes earlier may already be an overload.
    const crowded = [...levels].sort((a, b) => b - a).slice(0, 2);
    const sustainable = Math.max(1, Math.round(Math.max(...crowded.map((c) => rateOf(byLevel.get(c)!)))));
    const unloaded = byLevel.get(Math.min(...levels))!;
    const ow = [10, 10, 10, 9, 8, 8, 11];
    if (steps.has('open')) {
      console.log(`\nopen loop at the rate ${crowded.join(' and ')} clients reached (${sustainable}/s) and twice it:`);
      console.log(row(['offered/s', 'accepted/s', '503/s', 'p50 ms', 'p99 ms', 'other', '503 p99 ms'], ow));
    }
    const loaded: Run[] = [];
    for (const factor of steps.has('open') ? [1, 2] : []) {
      const r = await openLoop(target, queries, sustainable * factor, seconds);
      loaded.push(r);
      for (const [s, n] of r.other) other.set(s, (other.get(s) ?? 0) + n);
      const p = percentiles(r.latencies);
      console.log(row([sustainable * factor, rateOf(r), r.shed / r.seconds, p.p50, p.p99, String([...r.other.values()].reduce((a, b) => a + b, 0)), percentiles(r.shedLatencies).p99], ow));
    }
    if (loaded[1]) {
      const base = percentiles(unloaded.latencies).p99;
      const at2 = percentiles(loaded[1].latencies).p99;
      const shed2 = percentiles(loaded[1].shedLatencies).p99;
      console.log(
        `\nat 2×: accepted p99 ${fmt(at2)} ms = ${(at2 / base).toFixed(2)}× the ${Math.min(...levels)}-client p99 ${fmt(base)} ms (goal ≤ 3×); ` +
          `503 p99 ${fmt(shed2)} ms (goal < 50 ms)`,
      );
    }
    if (target.light && steps.has('tenants')) tenantWindows = await twoTenants(target, agent, queries, tenantSeconds);
    if (steps.has('bursts')) await bursts(target, queries, sustainable, seconds);
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at end`);
    if (other.size > 0) console.log(`answers neither 200 nor 503, by status (0: none): ${[...other].map(([s, n]) => `${s} × ${n}`).join(', ')}`);
  } finally {
    agent.destroy();
    await bareDb?.close();
    for (const c of [bareHttp?.child, child]) {
      if (!c) continue;
      c.kill('SIGTERM');
      await new Promise((r) => c.once('exit', r));
    }
  }
  if (process.env.BENCH_TRACE && tenantWindows) reportTrace(process.env.BENCH_TRACE, tenantWindows);
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
