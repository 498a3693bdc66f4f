/**
 * npm run bench:replicas [-- --memories 5000 --seconds 10 --searchers 8 --writers 2 --rounds 2]
 *
 * Search throughput with the primary alone vs. the primary + one streaming replica, under the same
 * mixed load (writers creating memories with their key, searchers with read-only keys of their own,
 * keyword and hybrid searches in turn), as a ratio in one run: two API apps over one throwaway
 * database (each in a process of its own), one with DATABASE_REPLICA_URLS, measured in alternating rounds. Also the cost of
 * read-your-writes: the time a read spends choosing its database (the key's fence from Redis, the
 * choice) and a write spends recording its fence (the primary's WAL position, then Redis).
 * Needs PostgreSQL, Redis and a streaming replica of the cluster (BENCH_REPLICA_URL; by default
 * the test replica on 127.0.0.1:5433 that `bash scripts/test-replica.sh ensure` makes).
 * On one machine the replica shares the primary's cores: the gain is bounded by them; the figure
 * shows the routing works and what it costs.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { createLogger, loadConfig } from '@ams/core';
import { accountsRepository, createDatabase, createPostgresDatabase, dropPostgresDatabase, migrateLatest, type Database } from '@ams/db';
import { LexicalEmbedder } from '@ams/embeddings';
import { createApp, importRecordRules, issueApiKey } from '@ams/api';
import { apiRole, connectRedis, start, startReadRouting, type RedisConnection } from '@ams/runtime';
import { ms, times } from './report';
import { ADMIN_URL, arg, percentiles, prng, sentence } from './support';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const REPLICA_URL = process.env.BENCH_REPLICA_URL ?? 'postgres://postgres@127.0.0.1:5433/postgres';

const fine = (n: number) => `${n.toFixed(3)} ms`;
function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Both apps' settings: load shedding off (the bench measures throughput, not refusals). */
const benchEnv = (databaseUrl: string, prefix: string): NodeJS.ProcessEnv => ({
  ...process.env,
  DATABASE_URL: databaseUrl,
  REDIS_URL,
  REDIS_KEY_PREFIX: prefix,
  NODE_ENV: 'test',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '100000000',
  MAX_IN_FLIGHT_REQUESTS: '0',
  MAX_DB_POOL_WAIT_MS: '0',
  MAX_EVENT_LOOP_DELAY_MS: '0',
});

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function call(base: string, key: string, method: string, path: string, body?: unknown): Promise<number> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, {
      method,
      agent,
      headers: { authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

interface Served {
  base: string;
  /** Ends the API process; its read-routing figures (with replicas), as it printed them. */
  close(): Promise<{ routed: Record<string, number>; timing: { readChecks: number; readSeconds: number; writeNotes: number; writeSeconds: number } } | null>;
}

/** The child: one API app over `--db` (with `--replica`, reading from it), its address on stdout's first line. */
async function serveChild(): Promise<void> {
  const replica = option('replica');
  const config = loadConfig({ ...benchEnv(option('db')!, option('prefix')!), ...(replica ? { DATABASE_REPLICA_URLS: replica, DATABASE_REPLICA_CHECK_INTERVAL_MS: '100' } : {}) });
  const logger = createLogger('bench', config);
  const db = await createDatabase(config);
  const redis = connectRedis(REDIS_URL, logger);
  const { ctx } = await start(apiRole(config), config, { standalone: false, importRules: importRecordRules, db, redis, embedder: new LexicalEmbedder(), work: { embedding: false, webhooks: false } });
  const server = createApp(ctx).app.listen(0, '127.0.0.1');
  server.keepAliveTimeout = 120_000;
  await new Promise((r) => server.once('listening', r));
  process.stdout.write(JSON.stringify({ base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }) + '\n');
  process.once('SIGTERM', () => {
    const r = ctx.readRouting;
    process.stdout.write(JSON.stringify(r ? { routed: r.routed, timing: r.timing } : null) + '\n');
    process.exit(0);
  });
}

async function spawnApi(db: string, prefix: string, replica?: string): Promise<Served> {
  const args = ['--import', 'tsx', __filename, '--serve', '--db', db, '--prefix', prefix, ...(replica ? ['--replica', replica] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout! });
  const next = () =>
    new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`API process exited (${code})`)));
    });
  const { base } = JSON.parse(await next()) as { base: string };
  return {
    base,
    async close() {
      const last = next();
      child.kill('SIGTERM');
      return JSON.parse(await last);
    },
  };
}

interface Phase {
  searches: number;
  writes: number;
  errors: number;
  seconds: number;
  latencies: number[];
}

/** `searchers` closed-loop search clients and `writers` create clients against `target` for `seconds`. */
async function mixedLoad(target: Served, keys: { writer: string[]; searcher: string[] }, seconds: number, rand: () => number): Promise<Phase> {
  const phase: Phase = { searches: 0, writes: 0, errors: 0, seconds, latencies: [] };
  const until = performance.now() + seconds * 1000;
  const searcher = async (key: string, n: number) => {
    for (let i = n; performance.now() < until; i++) {
      const started = performance.now();
      const words = sentence(rand).split(' ').slice(1, 4).join(' ');
      const status = await call(target.base, key, 'POST', '/v1/memories/search', { query: words, search_mode: i % 2 ? 'hybrid' : 'keyword', limit: 10 });
      if (status === 200) {
        phase.searches++;
        phase.latencies.push(performance.now() - started);
      } else phase.errors++;
    }
  };
  const writer = async (key: string) => {
    while (performance.now() < until) {
      const status = await call(target.base, key, 'POST', '/v1/memories', { content: sentence(rand), agent_id: 'bench-writer' });
      if (status === 201) phase.writes++;
      else phase.errors++;
    }
  };
  await Promise.all([...keys.searcher.map((k, i) => searcher(k, i)), ...keys.writer.map((k) => writer(k))]);
  return phase;
}

async function main(): Promise<void> {
  const memories = arg('memories', 5_000);
  const seconds = arg('seconds', 10);
  const searchers = arg('searchers', 8);
  const writers = arg('writers', 2);
  const rounds = arg('rounds', 2);
  const name = `ams_bench_rpl_${Date.now().toString(36)}_${crypto.randomBytes(2).toString('hex')}`;
  const url = await createPostgresDatabase(ADMIN_URL, name);
  const replicaUrl = (() => {
    const u = new URL(REPLICA_URL);
    u.pathname = `/${name}`;
    return u.toString();
  })();
  const config = loadConfig(benchEnv(url, name));
  const replicaConfig = loadConfig({ ...benchEnv(url, name), DATABASE_REPLICA_URLS: replicaUrl, DATABASE_REPLICA_CHECK_INTERVAL_MS: '100' });
  const logger = createLogger('bench', config);
  const db: Database = await createDatabase(config);
  let redis: RedisConnection | undefined;
  const served: Served[] = [];
  try {
    await migrateLatest(db.knex);
    redis = connectRedis(REDIS_URL, logger);
    // This process's own view of the replica: the seed's arrival, and the checks timed alone.
    const readRouting = await startReadRouting(replicaConfig, db, redis, logger);
    // The new database reaches the replica by replay: its first checks may find it missing.
    for (const until = Date.now() + 30_000; readRouting && !readRouting.replicas.anyUp() && Date.now() < until; ) await new Promise((r) => setTimeout(r, 200));
    if (!readRouting?.replicas.anyUp()) throw new Error(`no streaming replica in rotation at ${replicaUrl} (bash scripts/test-replica.sh ensure)`);
    // Each app in a process of its own (its own event loop), as API processes run.
    const a = await spawnApi(url, name);
    served.push(a);
    const b = await spawnApi(url, name, replicaUrl);
    served.push(b);

    const account = (await accountsRepository.insert(db.knex, { email: `${name}@bench.local`, passwordHash: null }))!;
    const issue = (scopes: Array<'read' | 'write'>) => issueApiKey({ db }, account.id, { name: 'bench', scopes }).then((k) => k.key);
    const keys = { writer: await Promise.all(Array.from({ length: writers }, () => issue(['read', 'write']))), searcher: await Promise.all(Array.from({ length: searchers }, () => issue(['read']))) };
    const rand = prng(7);
    process.stdout.write(`seeding ${memories} memories…\n`);
    for (let i = 0; i < memories; i += 100) {
      const batch = Array.from({ length: Math.min(100, memories - i) }, () => ({ content: sentence(rand), agent_id: 'bench-writer' }));
      await call(a.base, keys.writer[0]!, 'POST', '/v1/memories/batch', { memories: batch });
    }
    await db.knex.raw('ANALYZE memories');
    // The replica has the seed before the timed rounds start.
    const seeded = await readRouting.replicas.writePosition();
    const deadline = Date.now() + 60_000;
    while (!readRouting.replicas.reader(seeded) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));

    const totals = { primary: [] as Phase[], replica: [] as Phase[] };
    await mixedLoad(a, keys, 2, rand); // warm-up: pools, plans, caches
    for (let round = 0; round < rounds; round++) {
      totals.primary.push(await mixedLoad(a, keys, seconds, rand));
      totals.replica.push(await mixedLoad(b, keys, seconds, rand));
      process.stdout.write(`round ${round + 1}/${rounds} done\n`);
    }
    // The check alone, one at a time with no other load: what read-your-writes adds to a read and a write.
    const timed = async (n: number, fn: () => Promise<unknown>) => {
      const samples: number[] = [];
      for (let i = 0; i < n; i++) {
        const started = performance.now();
        await fn();
        samples.push(performance.now() - started);
      }
      return percentiles(samples);
    };
    const readCheck = await timed(1_000, async () => readRouting.replicas.reader((await readRouting.fences.after(keys.searcher[0]!)) ?? undefined));
    const writeFence = await timed(1_000, async () => readRouting.fences.note('bench-writer', await readRouting.replicas.writePosition()));
    const sum = (phases: Phase[]) => ({
      searchRate: phases.reduce((n, p) => n + p.searches, 0) / phases.reduce((n, p) => n + p.seconds, 0),
      writeRate: phases.reduce((n, p) => n + p.writes, 0) / phases.reduce((n, p) => n + p.seconds, 0),
      errors: phases.reduce((n, p) => n + p.errors, 0),
      latency: percentiles(phases.flatMap((p) => p.latencies)),
    });
    const p = sum(totals.primary);
    const r = sum(totals.replica);
    await a.close();
    const figures = await b.close();
    served.length = 0;
    if (!figures) throw new Error('the replica app did not report its routing');
    const t = figures.timing;
    const rows: string[][] = [
      ['searches/s', p.searchRate.toFixed(1), r.searchRate.toFixed(1), times(r.searchRate / p.searchRate)],
      ['creates/s', p.writeRate.toFixed(1), r.writeRate.toFixed(1), times(r.writeRate / p.writeRate)],
      ['search p50', ms(p.latency.p50), ms(r.latency.p50), times(r.latency.p50 / p.latency.p50)],
      ['search p99', ms(p.latency.p99), ms(r.latency.p99), times(r.latency.p99 / p.latency.p99)],
      ['errors', String(p.errors), String(r.errors), ''],
      ['reads routed', '', Object.entries(figures.routed).map(([k, v]) => `${k} ${v}`).join(', '), ''],
      ["read under load: key's fence (Redis) + choice, mean", '', ms((t.readSeconds / Math.max(1, t.readChecks)) * 1000), ''],
      ['write under load: WAL position + fence (Redis), mean', '', ms((t.writeSeconds / Math.max(1, t.writeNotes)) * 1000), ''],
      ['read check alone, p50 / p99', '', `${fine(readCheck.p50)} / ${fine(readCheck.p99)}`, ''],
      ['write fence alone, p50 / p99', '', `${fine(writeFence.p50)} / ${fine(writeFence.p99)}`, ''],
    ];
    const head = ['figure', 'primary alone', 'primary + 1 replica', 'ratio'];
    const width = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(width[i]!)).join(' | ')} |`;
    process.stdout.write(`\n${memories} memories, ${searchers} searchers (read-only keys) + ${writers} writers, ${rounds} × ${seconds} s per setup, alternating\n`);
    process.stdout.write([line(head), `|${width.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n') + '\n');
    await readRouting.close();
  } finally {
    for (const s of served) await s.close();
    await redis?.close();
    await db.close();
    await dropPostgresDatabase(ADMIN_URL, name);
  }
}

(process.argv.includes('--serve') ? serveChild() : main()).catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
