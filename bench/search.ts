/**
 * npm run bench:search [-- --n 10000 --queries 200]
 * Loads N memories (lexical embedder) through the batch API, then prints p50/p95/p99 latency of
 * semantic, keyword and hybrid search over HTTP, and HNSW recall@10 against an exact scan.
 */
import { performance } from 'node:perf_hooks';
import { memoriesRepository, SearchFilters } from '@ams/db';
import { toPgVector } from '@ams/embeddings';
import { arg, percentiles, post, prng, sentence, startBenchServer } from './support';

async function main(): Promise<void> {
  const n = arg('n', 10_000);
  const queries = arg('queries', 200);
  const server = await startBenchServer();
  try {
    const rand = prng(42);
    const loadStart = performance.now();
    for (let done = 0; done < n; done += 100) {
      const memories = Array.from({ length: Math.min(100, n - done) }, (_, i) => ({
        content: sentence(rand),
        agent_id: (done + i) % 100 === 0 ? 'rare-agent' : 'bulk-agent',
      }));
      const res = await post(server, '/v1/memories/batch', { memories });
      if (res.status !== 200 || res.body.failed > 0) throw new Error(`batch failed: ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    const loadSeconds = (performance.now() - loadStart) / 1000;
    await server.ctx.db.knex.raw('ANALYZE memories');
    console.log(`loaded ${n} memories in ${loadSeconds.toFixed(1)} s (${Math.round(n / loadSeconds)} memories/s through POST /v1/memories/batch)`);

    const qrand = prng(7);
    const texts = Array.from({ length: queries }, () => sentence(qrand).split(' ').slice(1, 6).join(' '));
    for (const mode of ['semantic', 'keyword', 'hybrid'] as const) {
      const samples: number[] = [];
      for (const query of texts) {
        const t0 = performance.now();
        const res = await post(server, '/v1/memories/search', { query, search_mode: mode, limit: 10 });
        samples.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`search failed: ${res.status}`);
      }
      console.log(`${mode.padEnd(8)} latency ms ${JSON.stringify(percentiles(samples))}`);
    }
    const rare: number[] = [];
    for (const query of texts.slice(0, 50)) {
      const t0 = performance.now();
      const res = await post(server, '/v1/memories/search', { query, agent_id: 'rare-agent', limit: 10 });
      rare.push(performance.now() - t0);
      if (res.body.data.length < Math.min(10, n / 100)) throw new Error('filtered search returned fewer than limit');
    }
    console.log(`semantic, agent filter keeping 1 % of rows: latency ms ${JSON.stringify(percentiles(rare))}`);

    // Recall@10 of the HNSW path against an exact (materialised, unindexed) scan.
    const accountId = (await server.ctx.db.knex('accounts').first('id')).id as string;
    const f: SearchFilters = { accountId, includeArchived: false, includeConfidential: false, embeddingModel: server.ctx.embedder.model };
    let hits = 0;
    const sample = texts.slice(0, 100);
    for (const query of sample) {
      const vector = toPgVector((await server.ctx.embedder.embed([query]))[0]!);
      const approx = await memoriesRepository.semanticCandidates(server.ctx.db.knex, f, vector, 10);
      const exact: Array<{ id: string }> = await server.ctx.db.knex
        .withMaterialized('m', (q) => q.from('memories').where({ account_id: accountId }).select('id', 'embedding'))
        .from('m')
        .select('id')
        .orderByRaw('embedding <=> ?::vector', [vector])
        .limit(10);
      const truth = new Set(exact.map((e) => e.id));
      hits += approx.filter((a) => truth.has(a.id)).length;
    }
    console.log(`HNSW recall@10 vs exact scan: ${(hits / (sample.length * 10)).toFixed(4)} over ${sample.length} queries`);
  } finally {
    await server.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
