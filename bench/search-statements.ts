/**
 * npm run bench:statements [-- --memories 10000 --queries 600]
 *
 * The forms a semantic search's SQL can take, replayed on connections of the bench's own (no pool,
 * no builder of ours), each query's vector new to all of them, the forms interleaved query by query
 * so the machine's load falls on all alike (decision 0013):
 * - the bare top-10: pgvector's statement alone, the limit;
 * - the service's form where statements are named: the index's top-k unnamed, then the rows with
 *   their entities as a named statement, on the same connection;
 * - the same in one statement, unnamed (PGlite's form, and PostgreSQL's with DB_PREPARED_STATEMENTS=false);
 * - the one statement named, on a connection set to plan_cache_mode = force_custom_plan.
 * The service's texts are taken from one search through the API (its knex's query events), so the
 * bench follows them as they change. Then what forcing custom plans costs a v2 create's statement,
 * the reason the setting stays off. Prints each form's backend CPU per run (/proc, the backend's
 * utime + stime) and its latency p50 / p95.
 */
import crypto from 'node:crypto';
import pg from 'pg';
import { VectorParam } from '@ams/embeddings';
import { CORPUS_MISSING, loadCorpus } from './corpus';
import { corpusKey, loadBenchModel, VectorBank } from './model';
import { readStat } from './proc-cpu';
import { seedStore } from './seed';
import { arg, bareTopK, percentiles, startBenchServer, type BenchServer } from './support';

const CUSTOM_PLANS = 'SET plan_cache_mode = force_custom_plan';

/** One way of running a statement: on a connection of its own, timed. */
interface Way<I> {
  name: string;
  run: (input: I) => Promise<unknown>;
  connection: pg.Client;
  backend: number;
}

async function way<I>(databaseUrl: string, name: string, run: (connection: pg.Client, input: I) => Promise<unknown>, setup?: string): Promise<Way<I>> {
  const connection = new pg.Client({ connectionString: databaseUrl });
  // A failed run ends the bench, whose database is then dropped under connections still open.
  connection.on('error', () => undefined);
  await connection.connect();
  if (setup) await connection.query(setup);
  const { rows } = await connection.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return { name, run: (input) => run(connection, input), connection, backend: rows[0]!.pid };
}

/**
 * Runs every way on each input in turn (the order alternating input by input), after `warm` inputs
 * untimed; prints each way's backend CPU and latency per run, and closes their connections.
 */
async function interleaved<I>(title: string, ways: Array<Way<I>>, inputs: I[], warm = 20): Promise<void> {
  for (const input of inputs.slice(0, warm)) for (const w of ways) await w.run(input);
  const cpuSeconds = (w: Way<I>) => readStat(`/proc/${w.backend}/stat`)?.seconds ?? NaN;
  const before = ways.map(cpuSeconds);
  const latencies = ways.map(() => [] as number[]);
  for (const [i, input] of inputs.slice(warm).entries()) {
    for (const j of i % 2 === 0 ? ways.keys() : [...ways.keys()].reverse()) {
      const started = performance.now();
      await ways[j]!.run(input);
      latencies[j]!.push(performance.now() - started);
    }
  }
  const runs = inputs.length - warm;
  console.log(`\n${title}, ${runs} runs each, interleaved (backend CPU from /proc, 10 ms ticks):`);
  ways.forEach((w, j) => {
    const { p50, p95 } = percentiles(latencies[j]!);
    const cpuMs = ((cpuSeconds(w) - before[j]!) * 1000) / runs;
    console.log(`  ${w.name.padEnd(58)} backend CPU ${cpuMs.toFixed(2)} ms   latency p50 ${p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms`);
  });
  await Promise.all(ways.map((w) => w.connection.end()));
}

/** The statements a POST of `body` to `path` makes the API send (its knex's query events), and the answer. */
async function statementsOf(server: BenchServer, path: string, body: object): Promise<{ status: number; response: unknown; sent: Array<{ sql: string; bindings: unknown[] }> }> {
  const sent: Array<{ sql: string; bindings: unknown[] }> = [];
  const listen = (e: { sql: string; bindings: unknown[] }) => sent.push(e);
  server.ctx.db.knex.client.on('query', listen);
  try {
    const res = await fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, response: await res.json(), sent };
  } finally {
    server.ctx.db.knex.client.off('query', listen);
  }
}

/** The search's forms, on the model's vectors of unseen queries. */
async function searchForms(server: BenchServer, query: string, dimensions: number, vectors: VectorParam[]): Promise<void> {
  const { status, sent } = await statementsOf(server, '/v1/memories/search', { query, search_mode: 'semantic', limit: 10 });
  const topK = sent.find((s) => s.sql.includes('<=>'));
  const rows = sent.find((s) => s.sql.includes('unnest('));
  if (status !== 200 || !topK || !rows) throw new Error(`expected the search's top-k and rows statements (status ${status}): is DB_PREPARED_STATEMENTS off?`);
  const vectorAt = topK.bindings.findIndex((b) => b instanceof VectorParam);
  const accountId = rows.bindings[0];
  const topKValues = (v: VectorParam) => topK.bindings.map((b, i) => (i === vectorAt ? v : b));
  // The one statement: the rows' columns over the top-k, as the repository builds it where nothing is named.
  const columns = rows.sql.slice(0, rows.sql.indexOf('FROM unnest('));
  const shifted = topK.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + 1}`);
  const one = `${columns}FROM (${shifted}) AS h JOIN memories ON memories.account_id = $${topK.bindings.length + 2}::uuid AND memories.id = h.id ORDER BY h.score DESC, h.id`;
  const oneValues = (v: VectorParam) => [accountId, ...topKValues(v), accountId];
  let bound = 0;
  const bare = bareTopK(dimensions).replace(/\?/g, () => `$${++bound}`);
  const url = server.databaseUrl;
  await interleaved("a semantic search's SQL (top 10), unseen query vectors", [
    await way<VectorParam>(url, 'bare top-10 (pgvector alone)', (c, v) => c.query(bare, [accountId, v])),
    await way<VectorParam>(url, 'top-k, then the rows named (the service)', async (c, v) => {
      const ranked = (await c.query<{ id: string; score: number }>(topK.sql, topKValues(v))).rows.sort((a, b) => b.score - a.score);
      return c.query({ name: 'rows', text: rows.sql, values: [accountId, ranked.map((r) => r.id), ranked.map((r) => Number(r.score)), accountId] });
    }),
    await way<VectorParam>(url, 'one statement, unnamed', (c, v) => c.query(one, oneValues(v))),
    await way<VectorParam>(url, 'one statement, named, custom plans forced', (c, v) => c.query({ name: 'one', text: one, values: oneValues(v) }), CUSTOM_PLANS),
  ], vectors);
}

/**
 * Why custom plans are not forced on the connection: a v2 create's statement (the memory, its
 * entities and links, agent activity, outbox), named, left to PostgreSQL's choice (a generic plan
 * after five runs) and with custom plans forced.
 */
async function createForms(server: BenchServer, runs: number): Promise<void> {
  const content = 'Alice from Acme Corp moved the billing service to PostgreSQL 16 on Kubernetes in Berlin.';
  const { status, response, sent } = await statementsOf(server, '/v2/memories', { content, agent_id: 'bench-create', memory_type: 'fact' });
  const create = sent.find((e) => e.sql.startsWith('WITH mem AS'));
  if (status !== 202 || !create) throw new Error(`expected a v2 create's statement (status ${status})`);
  const { id } = response as { id: string };
  // Each run a memory of its own: the id, and the events and links that name it, replaced.
  const values = (fresh: string) => create.bindings.map((b) => (typeof b === 'string' && b.includes(id) ? b.split(id).join(fresh) : b));
  const run = (c: pg.Client) => c.query({ name: 'create', text: create.sql, values: values(crypto.randomUUID()) });
  const url = server.databaseUrl;
  await interleaved(
    "a v2 create's statement",
    [await way(url, 'named, generic plan once PostgreSQL picks it (the service)', run), await way(url, 'named, custom plans forced', run, CUSTOM_PLANS)],
    Array.from({ length: runs + 20 }, () => null),
  );
}

async function main(): Promise<void> {
  const corpus = loadCorpus();
  if (!corpus) {
    console.error(CORPUS_MISSING);
    process.exit(2);
  }
  const [memories, queryCount] = [arg('memories', 10_000), arg('queries', 600)];
  const model = await loadBenchModel();
  const server = await startBenchServer(model.embedder);
  try {
    const bank = new VectorBank(model.embedder, corpusKey(corpus.docs));
    await bank.extend(corpus.docs, memories, 0, model.batchSize);
    await seedStore(server, corpus, bank, memories, model.embedder.model, model.embedder.dimensions);
    console.log(`${memories} memories`);
    // Query vectors from the model, each used once (20 of them to warm every connection).
    const texts = corpus.queries.slice(1, 21 + queryCount).map((q) => q.text);
    const vectors: VectorParam[] = [];
    for (let i = 0; i < texts.length; i += model.batchSize) vectors.push(...(await model.embedder.embed(texts.slice(i, i + model.batchSize))).map((v) => new VectorParam(v)));
    await searchForms(server, corpus.queries[0]!.text, model.embedder.dimensions, vectors);
    await createForms(server, queryCount);
  } finally {
    await server.close();
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
