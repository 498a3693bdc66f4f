/**
 * npm run bench:citus [-- --accounts 20 --per-account 500 --queries 200 --creates 300 --workers 2]
 *
 * The cost of Citus' extra hop, measured in one run: the same data and the same statements on the
 * plain PostgreSQL (TEST_DATABASE_ADMIN_URL, :5432) and on the coordinator of infra/citus-cluster.sh
 * (:9700, Citus' default 32 shards on the first --workers of its workers: the rebalance test leaves a
 * third one registered), as ratios. Database statements only (the repositories the API calls), so
 * the figure is the hop and not the model: a semantic search (the HNSW top-k and its rows), a
 * keyword search (its words' count, then its ranking with its rows), a hybrid's two candidate sets
 * and rows, and a v1 create's one statement (memory, two entities and links, an outbox row).
 * On one box the three clusters share its cores: Citus is not faster here, it shows its overhead.
 */
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  accountsRepository,
  agentsRepository,
  citusWorkersOf,
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
const WORKERS = option('workers', 2);
const MODEL = 'bench-model';

const BACKENDS = [
  { name: 'PostgreSQL', admin: process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  { name: `Citus (coordinator + ${WORKERS} workers)`, admin: process.env.CITUS_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:9700/postgres' },
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

interface Backend {
  db: Database;
  tenants: Tenant[];
  common: CommonWords;
}

const percentile = (samples: number[], q: number) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length * q)]!;

/**
 * Each statement on both backends in turn (PostgreSQL, then Citus, query by query), so whatever else
 * the machine does falls on both alike; the first 20 on each are a warm-up (pools, plans, caches).
 */
async function timedOnBoth(backends: Backend[], n: number, run: (b: Backend, i: number) => Promise<unknown>): Promise<Array<{ p50: number; p95: number; total: number }>> {
  for (let i = 0; i < Math.min(20, n); i++) for (const b of backends) await run(b, i);
  const samples = backends.map(() => [] as number[]);
  for (let i = 0; i < n; i++) {
    for (const [k, b] of backends.entries()) {
      const start = performance.now();
      await run(b, i);
      samples[k]!.push(performance.now() - start);
    }
  }
  return samples.map((s) => ({ p50: percentile(s, 0.5), p95: percentile(s, 0.95), total: s.reduce((a, b) => a + b, 0) }));
}

/** The same queries on both: a tenant by its index, so both backends search the same tenant's rows. */
async function measure(backends: Backend[]) {
  const r = rng(11);
  const queries = Array.from({ length: QUERIES }, () => ({ t: Math.floor(r() * ACCOUNTS), vector: vectorOf(r), text: `${WORDS[Math.floor(r() * WORDS.length)]} ${WORDS[Math.floor(r() * WORDS.length)]}` }));
  const on = (b: Backend, i: number) => ({ q: queries[i]!, f: filtersOf(b.tenants[queries[i]!.t]!) });
  const semantic = await timedOnBoth(backends, QUERIES, (b, i) => searchHitsRepository.nearest(b.db.knex, on(b, i).f, on(b, i).q.vector, 10));
  const keyword = await timedOnBoth(backends, QUERIES, (b, i) => searchHitsRepository.keyword(b.db.knex, b.common, on(b, i).f, on(b, i).q.text, 10));
  const hybrid = await timedOnBoth(backends, QUERIES, async (b, i) => {
    const { q, f } = on(b, i);
    const [sem, kw] = await Promise.all([
      memoriesRepository.semanticCandidates(b.db.knex, f, q.vector, 20),
      memoriesRepository.keywordCandidates(b.db.knex, b.common, f, q.text, 20),
    ]);
    const ids = [...new Set([...sem, ...kw].map((c) => c.id))].slice(0, 10);
    return searchHitsRepository.hydrate(b.db.knex, f.accountId, ids.map((id, k) => ({ id, score: 1 / (k + 1) })));
  });
  const texts = Array.from({ length: CREATES }, () => ({ content: textOf(r), embedding: vectorOf(r) }));
  const creates = await timedOnBoth(backends, CREATES, async (b, i) => {
    const t = b.tenants[i % ACCOUNTS]!;
    const id = crypto.randomUUID();
    await newMemoriesRepository.insertWithRecords(b.db.knex, {
      memories: [{ id, accountId: t.accountId, agentId: t.agentId, ...texts[i]!, metadata: {}, memoryType: 'fact', visibility: 'private', importance: 0.5, tier: 'warm', tierExplicit: false, sessionId: null, projectId: null, embeddingModel: MODEL, embeddingStatus: 'ready' } as never],
      entities: ['Kafka', 'Frankfurt'].map((name) => ({ accountId: t.accountId, memoryId: id, name, entityType: 'technology', relevance: 0.9 })),
      events: [{ accountId: t.accountId, type: 'memory.created', data: { id }, eventId: crypto.randomUUID(), createdAt: new Date() }],
    });
  });
  return { semantic, keyword, hybrid, creates: creates.map((c) => CREATES / (c.total / 1000)) };
}

async function main(): Promise<void> {
  const opened: Array<{ admin: string; name: string; backend: Backend }> = [];
  try {
    for (const b of BACKENDS) {
      const name = `ams_bench_citus_${Date.now().toString(36)}`;
      // The bench's database on the first WORKERS workers only (Citus' metadata is per database; none on PostgreSQL).
      const extra = (await citusWorkersOf(b.admin)).slice(WORKERS).map((w) => Number(w.port));
      const url = await createPostgresDatabase(b.admin, name, { citusUnregisteredPorts: extra });
      const db = await createDatabase({ databaseUrl: url, dataDir: '', dbPoolMax: 4 });
      const backend: Backend = { db, tenants: [], common: new CommonWords(db.knex) };
      opened.push({ admin: b.admin, name, backend });
      await migrateLatest(db.knex);
      console.error(`[${b.name}] seeding ${ACCOUNTS} × ${PER_ACCOUNT} memories`);
      backend.tenants = await seed(db);
    }
    const [pg, citus] = await measure(opened.map((o) => o.backend)).then((m) => [0, 1].map((k) => ({ semantic: m.semantic[k]!, keyword: m.keyword[k]!, hybrid: m.hybrid[k]!, creates: m.creates[k]! })));
    const table = new Table();
    const size = `${ACCOUNTS}×${PER_ACCOUNT}`;
    for (const mode of ['semantic', 'keyword', 'hybrid'] as const) {
      table.add(size, `${mode} search p50`, ms(pg![mode].p50), ms(citus![mode].p50), times(citus![mode].p50 / pg![mode].p50));
      table.add(size, `${mode} search p95`, ms(pg![mode].p95), ms(citus![mode].p95), times(citus![mode].p95 / pg![mode].p95));
    }
    table.add(size, 'v1 create statement, one at a time', rate(pg!.creates), rate(citus!.creates), times(pg!.creates / citus!.creates));
    table.note(
      `bare = plain PostgreSQL, service = the Citus coordinator with ${WORKERS} workers on the same machine, statement by statement in turn; ratio = Citus / PostgreSQL (time), PostgreSQL / Citus (rate).`,
    );
    console.log(table.render());
  } finally {
    for (const o of opened) {
      await o.backend.common.close();
      await o.backend.db.close();
      await dropPostgresDatabase(o.admin, o.name);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
