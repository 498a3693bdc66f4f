/**
 * npm run bench:citus [-- --accounts 20 --per-account 500 --queries 200 --creates 300]
 *
 * The cost of Citus' extra hop, measured in one run: the same data and the same statements on the
 * plain PostgreSQL (TEST_DATABASE_ADMIN_URL, :5432) and on the coordinator of infra/citus-cluster.sh
 * (:9700, two workers, Citus' default 32 shards), as ratios. Database statements only (the
 * repositories the API calls), so the figure is the hop and not the model: a semantic search (the
 * HNSW top-k and its rows), a keyword search (candidates, then rows), a hybrid's two candidate sets
 * and rows, and a v1 create's one statement (memory, two entities and links, an outbox row).
 * On one box the three clusters share its cores: Citus is not faster here, it shows its overhead.
 */
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  accountsRepository,
  agentsRepository,
  CommonWords,
  createDatabase,
  createPostgresDatabase,
  Database,
  dropPostgresDatabase,
  memoriesRepository,
  migrateLatest,
  newMemoriesRepository,
  searchHitsRepository,
  SearchFilters,
  webhooksRepository,
} from '@ams/db';
import { ms, rate, Table, times } from './report';

const option = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ACCOUNTS = option('accounts', 20);
const PER_ACCOUNT = option('per-account', 500);
const QUERIES = option('queries', 200);
const CREATES = option('creates', 300);
const MODEL = 'bench-model';

const BACKENDS = [
  { name: 'PostgreSQL', admin: process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  { name: 'Citus (coordinator + 2 workers)', admin: process.env.CITUS_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:9700/postgres' },
];

/** Deterministic pseudo-random numbers: both backends get the same data and queries. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}
const WORDS = ['kafka', 'postgres', 'vacuum', 'replica', 'broker', 'latency', 'deploy', 'rollback', 'cache', 'index', 'shard', 'queue', 'lag', 'backup', 'schema', 'token', 'quota', 'alert', 'grafana', 'terraform'];
const vectorOf = (r: () => number) => {
  const v = Array.from({ length: 384 }, () => r() - 0.5);
  const n = Math.hypot(...v);
  return `[${v.map((x) => (x / n).toFixed(5)).join(',')}]`;
};
const textOf = (r: () => number) => Array.from({ length: 8 }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');

interface Tenant {
  accountId: string;
  agentId: string;
}

async function seed(db: Database): Promise<Tenant[]> {
  const r = rng(7);
  const tenants: Tenant[] = [];
  for (let a = 0; a < ACCOUNTS; a++) {
    const account = await accountsRepository.insert(db.knex, { email: `bench-${crypto.randomUUID()}@example.com`, passwordHash: null });
    const agent = await agentsRepository.ensureByName(db.knex, account!.id, 'bench');
    await webhooksRepository.insert(db.knex, account!.id, { url: 'https://example.com/hook' } as never);
    tenants.push({ accountId: account!.id, agentId: agent.id });
    for (let i = 0; i < PER_ACCOUNT; i += 250) {
      await memoriesRepository.insertMany(
        db.knex,
        Array.from({ length: Math.min(250, PER_ACCOUNT - i) }, () => ({
          accountId: account!.id, agentId: agent.id, content: textOf(r), metadata: {}, memoryType: 'fact', visibility: 'private',
          importance: 0.5, tier: 'warm', tierExplicit: false, sessionId: null, projectId: null, embedding: vectorOf(r), embeddingModel: MODEL, embeddingStatus: 'ready',
        }) as never),
      );
    }
  }
  await db.knex.raw('ANALYZE');
  return tenants;
}

const filtersOf = (t: Tenant): SearchFilters => ({ accountId: t.accountId, includeConfidential: false, includeArchived: false, embeddingModel: MODEL });

async function timed(n: number, run: (i: number) => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < Math.min(20, n); i++) await run(i); // warm-up: pools, plans, caches
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await run(i);
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(n * 0.5)]!, p95: samples[Math.floor(n * 0.95)]! };
}

async function measure(db: Database, tenants: Tenant[]) {
  const r = rng(11);
  const queries = Array.from({ length: QUERIES }, () => ({ t: tenants[Math.floor(r() * tenants.length)]!, vector: vectorOf(r), text: `${WORDS[Math.floor(r() * WORDS.length)]} ${WORDS[Math.floor(r() * WORDS.length)]}` }));
  const common = new CommonWords(db.knex);
  const semantic = await timed(QUERIES, (i) => searchHitsRepository.nearest(db.knex, filtersOf(queries[i]!.t), queries[i]!.vector, 10));
  const keyword = await timed(QUERIES, async (i) => {
    const q = queries[i]!;
    const hits = await memoriesRepository.keywordCandidates(db.knex, common, filtersOf(q.t), q.text, 10);
    return searchHitsRepository.hydrate(db.knex, q.t.accountId, hits.map((h) => ({ id: h.id, score: h.score })));
  });
  const hybrid = await timed(QUERIES, async (i) => {
    const q = queries[i]!;
    const [sem, kw] = await Promise.all([
      memoriesRepository.semanticCandidates(db.knex, filtersOf(q.t), q.vector, 20),
      memoriesRepository.keywordCandidates(db.knex, common, filtersOf(q.t), q.text, 20),
    ]);
    const ids = [...new Set([...sem, ...kw].map((c) => c.id))].slice(0, 10);
    return searchHitsRepository.hydrate(db.knex, q.t.accountId, ids.map((id, k) => ({ id, score: 1 / (k + 1) })));
  });
  await common.close();
  const started = performance.now();
  for (let i = 0; i < CREATES; i++) {
    const t = tenants[i % tenants.length]!;
    const id = crypto.randomUUID();
    await newMemoriesRepository.insertWithRecords(db.knex, {
      memories: [{ id, accountId: t.accountId, agentId: t.agentId, content: textOf(r), metadata: {}, memoryType: 'fact', visibility: 'private', importance: 0.5, tier: 'warm', tierExplicit: false, sessionId: null, projectId: null, embedding: vectorOf(r), embeddingModel: MODEL, embeddingStatus: 'ready' } as never],
      entities: ['Kafka', 'Frankfurt'].map((name) => ({ accountId: t.accountId, memoryId: id, name, entityType: 'technology', relevance: 0.9 })),
      events: [{ accountId: t.accountId, type: 'memory.created', data: { id }, eventId: crypto.randomUUID(), createdAt: new Date() }],
    });
  }
  const creates = CREATES / ((performance.now() - started) / 1000);
  return { semantic, keyword, hybrid, creates };
}

async function main(): Promise<void> {
  const results: Array<Awaited<ReturnType<typeof measure>>> = [];
  for (const b of BACKENDS) {
    const name = `ams_bench_citus_${Date.now().toString(36)}`;
    const url = await createPostgresDatabase(b.admin, name);
    const db = await createDatabase({ databaseUrl: url, dataDir: '', dbPoolMax: 4 });
    try {
      await migrateLatest(db.knex);
      console.error(`[${b.name}] seeding ${ACCOUNTS} × ${PER_ACCOUNT} memories`);
      const tenants = await seed(db);
      results.push(await measure(db, tenants));
    } finally {
      await db.close();
      await dropPostgresDatabase(b.admin, name);
    }
  }
  const [pg, citus] = [results[0]!, results[1]!];
  const table = new Table();
  const size = `${ACCOUNTS}×${PER_ACCOUNT}`;
  for (const mode of ['semantic', 'keyword', 'hybrid'] as const) {
    table.add(size, `${mode} search p50`, ms(pg[mode].p50), ms(citus[mode].p50), times(citus[mode].p50 / pg[mode].p50));
    table.add(size, `${mode} search p95`, ms(pg[mode].p95), ms(citus[mode].p95), times(citus[mode].p95 / pg[mode].p95));
  }
  table.add(size, 'v1 create statement, one at a time', rate(pg.creates), rate(citus.creates), times(pg.creates / citus.creates));
  table.note('bare = plain PostgreSQL, service = the Citus coordinator with two workers on the same machine; ratio = Citus / PostgreSQL (time), PostgreSQL / Citus (rate).');
  console.log(table.render());
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
