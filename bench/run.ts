/**
 * npm run bench [-- --sizes 10000,100000 --modes split,embedded --million --queries 100 --api 200
 *                  --embed-seconds 120 --samples 30 --acks 500 --tail-queries 500 --profile 100 --profile-mode semantic|keyword|hybrid]
 *
 * Search and ingestion on real text (Debian's English package descriptions, bench/corpus.ts) with
 * a model of all-MiniLM-L6-v2's exact shape (bench/model.ts), against the real API. Prints ONE
 * table: every service figure beside the bare limit measured in the same run and the ratio.
 * Defaults are the quick run (10k memories, split mode, a few minutes once the vector bank is
 * cached); `--full` is sizes 10k,100k, modes split,embedded (embedded at 10k only) and --million.
 * Needs PostgreSQL with pgvector and Redis (split mode); embedded mode runs PGlite in-process.
 */
import { performance } from 'node:perf_hooks';
import { memoriesRepository, SearchFilters, type BoundVector } from '@ams/db';
import { toPgVector, VectorParam } from '@ams/embeddings';
import { Corpus, CORPUS_MISSING, loadCorpus, queriesFor } from './corpus';
import { BareModel } from './bare-model';
import { ingestFigures } from './ingest';
import { runMillion } from './million';
import { batchedRate, BenchModel, corpusKey, loadBenchModel, VectorBank } from './model';
import { SearchProfiler } from './profile';
import { ms, rate, Table, times } from './report';
import { BenchServer, bareTopK, memoriesHnswIndex, percentiles, post, startBenchServer } from './support';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const full = process.argv.includes('--full');

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}
const num = (name: string, fallback: number) => Number(option(name, String(fallback)));
const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n));
const RARE_AGENT = 'rare-agent';
const agentOf = (i: number) => (i % 100 === 0 ? RARE_AGENT : 'bench');

interface Loaded {
  /** memory id → document index. */
  docOf: Map<string, number>;
  apiRate: number;
  sources: string;
}

/** docs[n-api .. n) through POST /v1/memories/batch (the model in the request), docs[0 .. n-api) in bulk. */
async function load(server: BenchServer, model: BenchModel, bank: VectorBank, corpus: Corpus, n: number, api: number, table: Table, config: string): Promise<Loaded> {
  const db = server.ctx.db.knex;
  const apiDocs = corpus.docs.slice(n - api, n);
  const t0 = performance.now();
  for (let i = 0; i < apiDocs.length; i += 100) {
    const memories = apiDocs.slice(i, i + 100).map((content, j) => ({ content, agent_id: agentOf(n - api + i + j), client_id: `doc-${n - api + i + j}` }));
    const res = await post(server, '/v1/memories/batch', { memories });
    if (res.status !== 200 || res.body.failed > 0) throw new Error(`batch failed: ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  const apiRate = apiDocs.length / ((performance.now() - t0) / 1000);
  const bareNaive = await batchedRate(model.embedder, apiDocs, model.batchSize, 'naive');
  table.add(config, `v1 batch ingestion (${api} docs, 100/request)`, `model, naive batches of ${model.batchSize}: ${rate(bareNaive)}`, rate(apiRate), times(apiRate / bareNaive));

  const agents = new Map<string, string>((await db('agents').select('id', 'name')).map((a: { id: string; name: string }) => [a.name, a.id]));
  const { name: hnswName, def: indexdef } = await memoriesHnswIndex(db, model.embedder.dimensions);
  await db.raw(`DROP INDEX ${hnswName}`);
  let fromModel = 0;
  let jittered = 0;
  const bulkStart = performance.now();
  const chunk = 500;
  for (let i = 0; i < n - api; i += chunk) {
    const rows = [];
    for (let d = i; d < Math.min(n - api, i + chunk); d++) {
      const { vector, source } = bank.vector(d);
      if (source === 'model') fromModel++;
      else jittered++;
      rows.push({
        account_id: server.accountId,
        agent_id: agents.get(agentOf(d)),
        content: corpus.docs[d],
        memory_type: 'fact',
        tier: 'warm',
        client_id: `doc-${d}`,
        embedding: toPgVector(vector),
        embedding_model: model.embedder.model,
        embedding_status: 'ready',
      });
    }
    await db('memories').insert(rows);
  }
  const bulkSeconds = (performance.now() - bulkStart) / 1000;
  const buildStart = performance.now();
  await db.transaction(async (trx) => {
    if (server.ctx.db.driver === 'postgres') await trx.raw(`SET LOCAL maintenance_work_mem = '2GB'`);
    await trx.raw(indexdef);
  });
  const buildSeconds = (performance.now() - buildStart) / 1000;
  // What autovacuum would do soon after a bulk load (its insert threshold), done before measuring
  // rather than during it: hint bits and the visibility map set, statistics fresh.
  await db.raw('VACUUM ANALYZE memories');
  const sources =
    `${config}: ${api} rows through POST /v1/memories/batch (vectors by the model in the request); ${fromModel} bulk rows with bare-model vectors ` +
    `(.cache/bench vector bank); ${jittered} bulk rows with jittered copies of bank vectors (real text, synthetic vectors). ` +
    `Bulk INSERT ${bulkSeconds.toFixed(1)} s, HNSW build ${buildSeconds.toFixed(1)} s.`;
  const docOf = new Map<string, number>(
    (await db('memories').select('id', 'client_id')).map((r: { id: string; client_id: string }) => [r.id, Number(r.client_id.slice(4))]),
  );
  return { docOf, apiRate, sources };
}

async function timedSearch(server: BenchServer, body: Record<string, unknown>): Promise<{ ms: number; ids: string[] }> {
  const t0 = performance.now();
  const res = await post(server, '/v1/memories/search', { limit: 10, ...body });
  const elapsed = performance.now() - t0;
  if (res.status !== 200) throw new Error(`search failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return { ms: elapsed, ids: res.body.data.map((d: { memory: { id: string } }) => d.memory.id) };
}

/** Mean over queries of |top-10 ∩ relevant| / min(10, |relevant|). */
function recallAt10(results: number[][], relevant: Array<Set<number>>): number {
  const per = results.map((docs, q) => docs.slice(0, 10).filter((d) => relevant[q]!.has(d)).length / Math.min(10, relevant[q]!.size));
  return per.reduce((a, b) => a + b, 0) / per.length;
}

/**
 * Semantic and hybrid searches of `count` queries past the first `skip`, each beside the bare
 * embed and the bare pgvector top-10 of the same query.
 */
async function semanticTail(server: BenchServer, model: BenchModel, bare: BareModel, corpus: Corpus, n: number, skip: number, count: number, withHybrid = true) {
  const db = server.ctx.db.knex;
  const texts = queriesFor(corpus, n, skip + count).slice(skip).map((q) => q.text);
  const embed: number[] = [];
  const vector: number[] = [];
  const service: number[] = [];
  const hybrid: number[] = [];
  for (const text of texts) {
    const b = await bare.embed([text]);
    embed.push(b.ms);
    const v: BoundVector = new VectorParam(b.vectors[0]!);
    const t0 = performance.now();
    await db.raw(bareTopK(model.embedder.dimensions), [server.accountId, v]);
    vector.push(performance.now() - t0);
    service.push((await timedSearch(server, { query: text, search_mode: 'semantic' })).ms);
    if (withHybrid) hybrid.push((await timedSearch(server, { query: text, search_mode: 'hybrid' })).ms);
  }
  return { count: texts.length, embed: percentiles(embed), vector: percentiles(vector), service: percentiles(service), hybrid: percentiles(hybrid) };
}

async function searchFigures(server: BenchServer, model: BenchModel, bare: BareModel, corpus: Corpus, n: number, loaded: Loaded, table: Table, config: string, queryCount: number, tailCount: number) {
  const db = server.ctx.db.knex;
  // The first searches after the start and the bulk load, on queries used nowhere else in the run.
  const firstCount = num('first-queries', 100);
  const first = firstCount > 0 ? await semanticTail(server, model, bare, corpus, n, queryCount + tailCount, firstCount, false) : undefined;
  const queries = queriesFor(corpus, n, queryCount);
  const texts = queries.map((q) => q.text);
  const relevant = queries.map((q) => q.relevant);

  // Bare and service figures interleaved query by query, so the machine's load hits both alike.
  const bareEmbed: number[] = [];
  const serviceEmbed: number[] = [];
  const bareVector: number[] = [];
  const bareText: number[] = [];
  const vectors: BoundVector[] = [];
  const ftsDocs: number[][] = [];
  const sample = () => ({ samples: [] as number[], docs: [] as number[][] });
  const semantic = sample();
  const hybrid = sample();
  const keyword = sample();
  const service = async (into: ReturnType<typeof sample>, body: Record<string, unknown>) => {
    const r = await timedSearch(server, body);
    into.samples.push(r.ms);
    into.docs.push(r.ids.map((id) => loaded.docOf.get(id) ?? -1));
  };
  for (const text of texts) {
    const b = await bare.embed([text]);
    bareEmbed.push(b.ms);
    const v: BoundVector = new VectorParam(b.vectors[0]!);
    vectors.push(v);
    // The service's embedder as a search calls it (its model thread, its batching), on the same text.
    let t0 = performance.now();
    await model.embedder.embed([text]);
    serviceEmbed.push(performance.now() - t0);
    t0 = performance.now();
    await db.raw(bareTopK(model.embedder.dimensions), [server.accountId, v]);
    bareVector.push(performance.now() - t0);
    await service(semantic, { query: text, search_mode: 'semantic' });
    await service(hybrid, { query: text, search_mode: 'hybrid' });
    // Bare full text: every query word OR-ed, ranked by ts_rank_cd, on the same rows.
    t0 = performance.now();
    const res = await db.raw(
      `SELECT client_id FROM memories CROSS JOIN (SELECT replace(plainto_tsquery('english', ?)::text, '&', '|')::tsquery AS q) x
        WHERE account_id = ? AND content_tsv @@ x.q ORDER BY ts_rank_cd(content_tsv, x.q) DESC LIMIT 10`,
      [text, server.accountId],
    );
    bareText.push(performance.now() - t0);
    ftsDocs.push(res.rows.map((r: { client_id: string }) => Number(r.client_id.slice(4))));
    await service(keyword, { query: text, search_mode: 'keyword' });
  }
  const embed = percentiles(bareEmbed);
  const bareVec = percentiles(bareVector);
  const bareFts = percentiles(bareText);
  const sem = percentiles(semantic.samples);
  const hyb = percentiles(hybrid.samples);
  const kw = percentiles(keyword.samples);
  const limit = embed.p50 + bareVec.p50;
  const inService = percentiles(serviceEmbed);
  table.add(config, 'query embed in the service (model thread, batching) p50', `bare model call ${ms(embed.p50)}`, ms(inService.p50), times(inService.p50 / embed.p50));
  table.add(config, 'semantic search p50', `query embed ${ms(embed.p50)} + pgvector top-10 ${ms(bareVec.p50)}`, ms(sem.p50), times(sem.p50 / limit));
  // The tail needs more samples than the loop above: a p99 of 100 is their highest. This loop has
  // no full-text statements between the searches: above, the bare ts_rank_cd query (100–250 ms at
  // 100k) evicts the index's pages, which the bare top-10 then reads back for the search after it.
  // Hybrid runs there too, each right after the semantic search of its query, as above.
  const tail = await semanticTail(server, model, bare, corpus, n, queryCount, tailCount);
  table.add(
    config,
    `semantic search p50 / p99 (${tail.count} more queries)`,
    `embed ${ms(tail.embed.p50)} / ${ms(tail.embed.p99)} + pgvector ${ms(tail.vector.p50)} / ${ms(tail.vector.p99)}`,
    `${ms(tail.service.p50)} / ${ms(tail.service.p99)}`,
    `p50 ${times(tail.service.p50 / (tail.embed.p50 + tail.vector.p50))}; p99 ${times(tail.service.p99 / tail.service.p50)} its p50`,
  );
  if (first) {
    table.add(config, `first ${first.count} semantic searches after start and load, p50`, `steady state (the ${tail.count} later) ${ms(tail.service.p50)}`, ms(first.service.p50), times(first.service.p50 / tail.service.p50));
  }
  table.add(config, 'hybrid search p50 / p99', `semantic p50 ${ms(sem.p50)}`, `${ms(hyb.p50)} / ${ms(hyb.p99)}`, `+${ms(hyb.p50 - sem.p50)}`);
  table.add(
    config,
    `hybrid search p50 / p99 (the ${tail.count} more queries)`,
    `semantic p50 ${ms(tail.service.p50)}`,
    `${ms(tail.hybrid.p50)} / ${ms(tail.hybrid.p99)}`,
    `+${ms(tail.hybrid.p50 - tail.service.p50)}`,
  );
  table.add(config, 'keyword search p50 / p95', `ts_rank_cd, OR query: ${ms(bareFts.p50)} / ${ms(bareFts.p95)}`, `${ms(kw.p50)} / ${ms(kw.p95)}`, times(kw.p50 / bareFts.p50));
  const rBare = recallAt10(ftsDocs, relevant);
  const rKeyword = recallAt10(keyword.docs, relevant);
  table.add(config, `keyword recall@10 (${texts.length} queries)`, rBare.toFixed(3), rKeyword.toFixed(3), times(rKeyword / rBare));
  table.add(config, 'semantic / hybrid recall@10 (random-weight model)', '', `${recallAt10(semantic.docs, relevant).toFixed(3)} / ${recallAt10(hybrid.docs, relevant).toFixed(3)}`);

  // HNSW (the service's own path: iterative scan, its ef_search) against an exact scan.
  const f: SearchFilters = { accountId: server.accountId, includeArchived: false, includeConfidential: false, embeddingModel: model.embedder.model };
  let hits = 0;
  for (const v of vectors) {
    const approx = await memoriesRepository.semanticCandidates(db, f, v, 10);
    const exact = await db
      .withMaterialized('m', (q) => q.from('memories').where({ account_id: server.accountId }).select('id', 'embedding'))
      .from('m')
      .select('id')
      .orderByRaw('embedding <=> ?::vector', [v])
      .limit(10);
    const truth = new Set(exact.map((e: { id: string }) => e.id));
    hits += approx.filter((a) => truth.has(a.id)).length;
  }
  table.add(config, 'HNSW recall@10 vs exact', 'exact scan: 1.000', (hits / (vectors.length * 10)).toFixed(3));

  // An agent holding 1 % of the rows.
  const filtered = sample();
  const unfiltered = sample();
  for (const text of texts) {
    await service(unfiltered, { query: text, search_mode: 'semantic' });
    await service(filtered, { query: text, search_mode: 'semantic', agent_id: RARE_AGENT });
  }
  const fp = percentiles(filtered.samples);
  const up = percentiles(unfiltered.samples);
  const full10 = filtered.docs.filter((d) => d.length === Math.min(10, Math.floor(n / 100))).length / filtered.docs.length;
  table.add(config, 'filtered semantic p95 (agent with 1 % of rows)', `unfiltered p95 ${ms(up.p95)}`, `${ms(fp.p95)}, full limit in ${(full10 * 100).toFixed(0)} %`, times(fp.p95 / up.p95));
}

/** Where one semantic search's time goes (spans per request + CPU by area), printed after the table. */
async function profileSearch(server: BenchServer, profiler: SearchProfiler, corpus: Corpus, n: number, count: number): Promise<string> {
  const texts = queriesFor(corpus, n, count).map((q) => q.text);
  const mode = option('profile-mode', 'semantic');
  await timedSearch(server, { query: texts[0], search_mode: mode });
  await profiler.start();
  const t0 = performance.now();
  for (const query of texts) await timedSearch(server, { query, search_mode: mode });
  const wall = (performance.now() - t0) / texts.length;
  const { spans, cpu, requests } = await profiler.stop();
  const lines = [`Where a ${mode} search's time goes (${requests} requests, mean ms per request; client round trip ${wall.toFixed(1)} ms):`];
  for (const [k, v] of spans) lines.push(`  ${v.toFixed(2).padStart(8)}  ${k}`);
  lines.push('CPU self time in this process by area (mean ms per request; includes the bench client):');
  for (const [k, v] of cpu.slice(0, 18)) lines.push(`  ${v.toFixed(2).padStart(8)}  ${k}`);
  return lines.join('\n');
}

async function runConfig(mode: 'split' | 'embedded', n: number, ctx: { model: BenchModel; bare: BareModel; bank: VectorBank; corpus: Corpus; table: Table; profiles: string[] }) {
  const config = `${label(n)} ${mode}`;
  const api = Math.min(num('api', 200), n);
  console.error(`\n== ${config}`);
  const profiler = new SearchProfiler();
  const server = await startBenchServer(ctx.model.embedder, { redisUrl: mode === 'split' ? REDIS_URL : undefined, embedded: mode === 'embedded', inProcessModel: true, instrument: profiler.instrument });
  profiler.attach(server.server);
  try {
    const loaded = await load(server, ctx.model, ctx.bank, ctx.corpus, n, api, ctx.table, config);
    ctx.table.note(loaded.sources);
    await searchFigures(server, ctx.model, ctx.bare, ctx.corpus, n, loaded, ctx.table, config, num('queries', 100), num('tail-queries', 500));
    ctx.profiles.push(`[${config}] ${await ingestFigures(server, ctx.model, ctx.corpus, ctx.table, config, num('samples', 30), num('acks', 500), mode === 'embedded')}`);
    const count = num('profile', 100);
    if (count > 0) {
      ctx.profiles.push(`[${config}] ${await profileSearch(server, profiler, ctx.corpus, n, count)}`);
      console.error(ctx.profiles.at(-1));
    }
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  const sizes = option('sizes', full ? '10000,100000' : '10000').split(',').filter((x) => x !== 'none' && x !== '').map(Number);
  const modes = option('modes', full ? 'split,embedded' : 'split').split(',') as Array<'split' | 'embedded'>;
  const million = full || process.argv.includes('--million');
  const corpus = loadCorpus();
  if (!corpus) {
    console.error(CORPUS_MISSING);
    process.exit(2);
  }
  const model = await loadBenchModel();
  const bank = new VectorBank(model.embedder, corpusKey(corpus.docs));
  const budget = num('embed-seconds', 120);
  const maxN = Math.max(1_000, ...sizes);
  const added = await bank.extend(corpus.docs, maxN, budget, model.batchSize);
  console.error(
    `corpus: ${corpus.docs.length} documents (${corpus.paragraphs} distinct Debian description paragraphs, then single sentences), ${corpus.queries.length} queries; ` +
      `model: all-MiniLM-L6-v2's shape, random weights, quantized=${model.quantized}; vector bank ${bank.size} (+${added} this run)`,
  );
  const table = new Table();
  const profiles: string[] = [];
  const bare = await BareModel.start();
  for (const n of sizes) {
    for (const mode of modes) {
      if (mode === 'embedded' && n > 10_000) continue; // PGlite is the single-user mode; 10k says what it holds
      await runConfig(mode, n, { model, bare, bank, corpus, table, profiles });
    }
  }
  if (million) await runMillion({ model, bank, corpus, table, queryCount: num('queries', 100), redisUrl: REDIS_URL });
  table.note(`corpus: Debian English package descriptions, ${corpus.paragraphs} distinct paragraphs (+ sentences past that); queries: packages' short descriptions, relevant = that package's paragraphs.`);
  table.note('search queries are cold: the bench server has no query-embedding cache, so every search request (semantic, hybrid, the filtered pair, the profile) runs the model on its query, as the bare figure does; the first-searches figure uses queries used nowhere else.');
  table.note(
    `model: generated BERT of all-MiniLM-L6-v2's exact shape (random weights), quantized=${model.quantized}; the bare query embed is one call of the transformers.js pipeline ` +
      `on the main thread of a process of its own (bench/bare-model.ts), timed there; batch and ingest figures' bare model is the service's embedder object in this process.`,
  );
  console.log(`\n${table.render()}\n`);
  if (profiles.length) console.log(profiles.join('\n\n'));
  bare.close();
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
