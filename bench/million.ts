/**
 * The 1M mode: a million memories bulk-loaded inside PostgreSQL (real corpus text, vectors jittered
 * from the model's vector bank in SQL: a million model calls do not fit a bench run), the HNSW
 * index built afterwards, then semantic search through the API beside bare pgvector top-10, and
 * the index's size on disk (what it needs in memory to stay fast).
 */
import { performance } from 'node:perf_hooks';
import type { BoundVector } from '@ams/db';
import { VectorParam } from '@ams/embeddings';
import { Corpus, queriesFor } from './corpus';
import { BenchModel, singleLatency, VectorBank } from './model';
import { ms, Table, times } from './report';
import { bareTopK, memoriesHnswIndex, percentiles, post, startBenchServer } from './support';

/** The build options of an index definition ("m='12', ef_construction='64'"), pgvector's defaults when it names none. */
const hnswOptions = (indexdef: string) => /WITH \(([^)]*)\)/.exec(indexdef)?.[1]?.replaceAll("'", '') ?? 'm=16, ef_construction=64';

const num = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

export async function runMillion(ctx: { model: BenchModel; bank: VectorBank; corpus: Corpus; table: Table; queryCount: number; redisUrl: string }): Promise<void> {
  const n = num('million-rows', 1_000_000);
  const config = n === 1_000_000 ? '1M vectors' : `${n} vectors`;
  console.error(`\n== ${config}`);
  const server = await startBenchServer(ctx.model.embedder, { redisUrl: ctx.redisUrl, inProcessModel: true });
  const db = server.ctx.db.knex;
  try {
    const res = await post(server, '/v1/memories', { content: ctx.corpus.docs[0], agent_id: 'bench' });
    if (res.status >= 300) throw new Error(`create failed: ${res.status}`);
    const agentId = (await db('agents').where({ name: 'bench' }).first('id')).id as string;
    const bankSize = Math.min(ctx.bank.size, 5_000);
    const docs = Math.min(ctx.corpus.docs.length, n);
    await db.raw('CREATE UNLOGGED TABLE bench_bank (i int PRIMARY KEY, v real[])');
    await db.raw('CREATE UNLOGGED TABLE bench_docs (i int PRIMARY KEY, content text)');
    for (let i = 0; i < bankSize; i += 500) {
      const rows = [];
      for (let j = i; j < Math.min(bankSize, i + 500); j++) rows.push({ i: j, v: Array.from(ctx.bank.vector(j).vector) });
      await db('bench_bank').insert(rows);
    }
    for (let i = 0; i < docs; i += 2_000) await db('bench_docs').insert(ctx.corpus.docs.slice(i, i + 2_000).map((content, j) => ({ i: i + j, content })));
    const hnsw = await memoriesHnswIndex(db, ctx.model.embedder.dimensions);
    await db.raw(`DROP INDEX ${hnsw.name}`);
    const t0 = performance.now();
    const step = 100_000;
    for (let from = 0; from < n; from += step) {
      // Each row: a corpus document's text, and a bank vector moved by uniform noise (±0.05 a dimension).
      await db.raw(
        `INSERT INTO memories (account_id, agent_id, content, memory_type, tier, embedding, embedding_model, embedding_status)
         SELECT ?, ?, d.content, 'fact', 'warm',
                (SELECT array_agg(x + (random()::real - 0.5) * 0.1 ORDER BY o) FROM unnest(b.v) WITH ORDINALITY u(x, o))::vector,
                ?, 'ready'
           FROM generate_series(?::int, ?::int) g
           JOIN bench_docs d ON d.i = g % ?
           JOIN bench_bank b ON b.i = g % ?`,
        [server.accountId, agentId, ctx.model.embedder.model, from, Math.min(n, from + step) - 1, docs, bankSize],
      );
      console.error(`  loaded ${Math.min(n, from + step)} rows (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }
    const loadSeconds = (performance.now() - t0) / 1000;
    const b0 = performance.now();
    await db.transaction(async (trx) => {
      await trx.raw(`SET LOCAL maintenance_work_mem = '${process.env.BENCH_MAINTENANCE_WORK_MEM ?? '3GB'}'`);
      await trx.raw(hnsw.def);
    });
    const buildSeconds = (performance.now() - b0) / 1000;
    // What autovacuum would start right after a bulk load, done before measuring rather than
    // during it (as for the 10k and 100k stores): otherwise it takes a core from the searches timed.
    await db.raw('VACUUM ANALYZE memories');
    const size = await db.raw(`SELECT pg_relation_size(?) AS index, pg_total_relation_size('memories') AS total`, [hnsw.name]);
    const gib = (b: string) => `${(Number(b) / 2 ** 30).toFixed(2)} GiB`;

    const texts = queriesFor(ctx.corpus, ctx.corpus.docs.length, ctx.queryCount).map((q) => q.text);
    const embed = await singleLatency(ctx.model.embedder, texts);
    const bare: number[] = [];
    for (const v of embed.vectors) {
      const s = performance.now();
      const vector: BoundVector = new VectorParam(v);
      await db.raw(bareTopK(ctx.model.embedder.dimensions), [server.accountId, vector]);
      bare.push(performance.now() - s);
    }
    const service: number[] = [];
    for (const query of texts) {
      const s = performance.now();
      const r = await post(server, '/v1/memories/search', { query, search_mode: 'semantic', limit: 10 });
      service.push(performance.now() - s);
      if (r.status !== 200) throw new Error(`search failed: ${r.status}`);
    }
    const e = embed.stats;
    const p = percentiles(bare);
    const sv = percentiles(service);
    ctx.table.add(config, 'semantic search p50', `query embed ${ms(e.p50)} + pgvector top-10 ${ms(p.p50)}`, ms(sv.p50), times(sv.p50 / (e.p50 + p.p50)));
    ctx.table.add(config, 'semantic search p99', `embed ${ms(e.p99)} + pgvector ${ms(p.p99)}`, ms(sv.p99), `${times(sv.p99 / sv.p50)} its p50`);
    ctx.table.add(config, 'HNSW index size (memory to stay fast)', '', gib(size.rows[0].index), `table+indexes ${gib(size.rows[0].total)}`);
    ctx.table.note(
      `${config}: ${n} rows bulk-loaded by INSERT … SELECT in PostgreSQL in ${loadSeconds.toFixed(0)} s: corpus text (${docs} documents, cycled), vectors = ${bankSize} ` +
        `bare-model vectors each moved by uniform noise (±0.05 a dimension); HNSW (${hnswOptions(hnsw.def)}) built afterwards in ${buildSeconds.toFixed(0)} s.`,
    );
  } finally {
    await server.close();
  }
}
