import { memoriesRepository, searchHitsRepository, type BoundVector } from '@ams/db';
import { toPgVector, VectorParam } from '@ams/embeddings';
import { entityNamesInQuery, reciprocalRankFusion } from '@ams/memories';
import { bearer, createAccount, createTestApp, expectError, TestAccount, TestApp, testBackend } from '@ams/testing';

type Hit = { memory: { id: string; content: string }; score: number; score_breakdown?: Record<string, unknown> };

describe('POST /v1/memories/search', () => {
  let t: TestApp;
  let acct: TestAccount;
  const ids: Record<string, string> = {};
  const search = (body: object, key = acct.key) => t.request().post('/v1/memories/search').set(bearer(key)).send(body);
  const contents = (res: { body: { data: Hit[] } }) => res.body.data.map((d) => d.memory.content);

  beforeAll(async () => {
    t = await createTestApp();
    acct = await createAccount(t.ctx);
    const seed: Array<[string, object]> = [
      ['pg', { content: 'PostgreSQL vacuum settings tuned for the analytics database', importance: 0.9, metadata: { team: 'data', priority: 3 } }],
      ['redis', { content: 'Redis cache eviction policy set to allkeys-lru', importance: 0.5, metadata: { team: 'platform', priority: 1 } }],
      ['coffee', { content: 'The office coffee machine is descaled on Mondays', importance: 0.1, metadata: { team: 'ops' } }],
      ['secret', { content: 'Database root password rotation schedule', importance: 0.6, visibility: 'confidential', metadata: { team: 'data' } }],
      ['archived', { content: 'Old database migration plan from 2019', importance: 0.4, metadata: { team: 'data', priority: 2 } }],
    ];
    for (const [name, body] of seed) {
      const res = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'searcher', ...body });
      ids[name] = res.body.id;
    }
    await t.request().patch(`/v1/memories/${ids.archived}`).set(bearer(acct.key)).send({ archived: true });
  });
  afterAll(() => t.close());

  it('ranks semantically, with the spec response shape', async () => {
    const res = await search({ query: 'postgresql database vacuum tuning' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'search_results', query: 'postgresql database vacuum tuning' });
    expect(res.body.data[0].memory.id).toBe(ids.pg);
    const scores = res.body.data.map((d: Hit) => d.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    for (const s of scores) expect(s).toBeLessThanOrEqual(1);
    expect(res.body.meta).toEqual({ recalled_count: res.body.data.length, total_evaluated: expect.any(Number), threshold: 0, top_scores: scores });
    for (const omitted of ['visibility', 'session_id', 'project_id', 'is_duplicate']) expect(res.body.data[0].memory).not.toHaveProperty(omitted);
  });

  it('leaves out confidential and archived memories unless asked', async () => {
    const plain = contents(await search({ query: 'database password rotation migration plan', limit: 100 }));
    expect(plain).not.toContain('Database root password rotation schedule');
    expect(plain).not.toContain('Old database migration plan from 2019');
    const all = contents(await search({ query: 'database password rotation migration plan', limit: 100, include_confidential: true, include_archived: true }));
    expect(all).toEqual(expect.arrayContaining(['Database root password rotation schedule', 'Old database migration plan from 2019']));
  });

  it('keyword mode uses full-text search: only matching memories, web-search syntax', async () => {
    const res = await search({ query: 'eviction', search_mode: 'keyword' });
    expect(contents(res)).toEqual(['Redis cache eviction policy set to allkeys-lru']);
    expect(res.body.data[0].score).toBeGreaterThan(0);
    expect(res.body.data[0].score).toBeLessThan(1);
    const excluded = await search({ query: 'database -analytics', search_mode: 'keyword', include_archived: true });
    expect(contents(excluded)).toEqual(['Old database migration plan from 2019']);
  });

  it('keyword mode matches any query word and ranks rarer words higher (BM25-style)', async () => {
    for (const content of ['queue worker retries failed jobs', 'queue worker restarts nightly', 'queue depth alarm fired', 'kafka consumer lag grew']) {
      await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'bm25', content });
    }
    const res = await search({ query: 'kafka queue', search_mode: 'keyword', agent_id: 'bm25' });
    expect(res.status).toBe(200);
    expect(contents(res)[0]).toBe('kafka consumer lag grew');
    expect(contents(res)).toHaveLength(4);
    const scores = res.body.data.map((d: Hit) => d.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(scores[0]).toBeGreaterThan(scores[1]);
    expect(contents(await search({ query: 'the of and', search_mode: 'keyword', agent_id: 'bm25' }))).toEqual([]);
  });

  it('hybrid mode fuses vector, text and entity-graph candidates with reciprocal rank fusion', async () => {
    // A memory that never says "Kubernetes" but is linked to that entity: only the graph leg finds it by name.
    const m = await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'graph', content: 'pods restarted after the node pool upgrade' });
    const [entity] = await t.ctx.db.knex('entities').insert({ account_id: acct.accountId, name: 'Kubernetes', entity_type: 'technology' }).returning('id');
    await t.ctx.db.knex('entity_memory_links').insert({ account_id: acct.accountId, entity_id: entity.id, memory_id: m.body.id, relevance_score: 0.9 });
    const res = await search({ query: 'kubernetes', search_mode: 'hybrid', agent_id: 'graph', debug: true });
    expect(res.body.data[0].memory.id).toBe(m.body.id);
    expect(res.body.data[0].score_breakdown).toMatchObject({ mode: 'hybrid', ranks: { graph: 1 } });
    const top = await search({ query: 'PostgreSQL vacuum analytics', search_mode: 'hybrid' });
    expect(top.body.data[0].memory.id).toBe(ids.pg);
    expect(top.body.data[0].score).toBeLessThanOrEqual(1);
  });

  it('filters by tier, min_importance, min_score and metadata operators', async () => {
    expect(contents(await search({ query: 'database', tier: 'hot', limit: 100, agent_id: 'searcher' }))).toEqual(['PostgreSQL vacuum settings tuned for the analytics database']);
    const important = contents(await search({ query: 'database cache coffee', min_importance: 0.5, limit: 100, agent_id: 'searcher' }));
    expect(important.sort()).toEqual(['PostgreSQL vacuum settings tuned for the analytics database', 'Redis cache eviction policy set to allkeys-lru']);
    const strict = await search({ query: 'PostgreSQL vacuum settings tuned for the analytics database', min_score: 0.99 });
    expect(contents(strict)).toEqual(['PostgreSQL vacuum settings tuned for the analytics database']);
    expect(strict.body.meta.threshold).toBe(0.99);
    const f = (metadata_filter: object) => search({ query: 'anything', metadata_filter, limit: 100, include_archived: true, agent_id: 'searcher' }).then(contents);
    expect(await f({ team: 'platform' })).toEqual(['Redis cache eviction policy set to allkeys-lru']);
    expect((await f({ team: { $in: ['platform', 'ops'] } })).sort()).toEqual(['Redis cache eviction policy set to allkeys-lru', 'The office coffee machine is descaled on Mondays']);
    expect((await f({ priority: { $gte: 2 } })).sort()).toEqual(['Old database migration plan from 2019', 'PostgreSQL vacuum settings tuned for the analytics database']);
    expect(await f({ priority: { $lt: 2 } })).toEqual(['Redis cache eviction policy set to allkeys-lru']);
    expect(await f({ priority: { $exists: false }, team: { $ne: 'data' } })).toEqual(['The office coffee machine is descaled on Mondays']);
    expect((await f({ team: { $nin: ['data', 'ops'] } }))).toContain('Redis cache eviction policy set to allkeys-lru');
  });

  it('compresses results to the sentences closest to the query within max_context_tokens', async () => {
    const long = 'Our cat sleeps all day. The Kafka consumer lag alert fires above ten thousand messages. Lunch is at noon. Bicycles are parked outside.';
    await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'compress', content: long });
    const res = await search({ query: 'kafka consumer lag alert', agent_id: 'compress', compress: true, max_context_tokens: 20 });
    const content = res.body.data[0].memory.content as string;
    expect(content.length).toBeLessThanOrEqual(80);
    expect(content).toContain('Kafka consumer lag');
  });

  it.each(['semantic', 'keyword', 'hybrid'])('records a %s search in search_events once it answered (this process\'s reads wait for it)', async (mode) => {
    const query = `recorded ${mode} database query`;
    const res = await search({ query, search_mode: mode, agent_id: 'searcher' });
    expect(res.status).toBe(200);
    await t.ctx.searches.written();
    const recorded = await t.ctx.db.knex('search_events').where({ account_id: acct.accountId, query });
    const agent = await t.ctx.db.knex('agents').where({ account_id: acct.accountId, name: 'searcher' }).first();
    expect(recorded).toEqual([expect.objectContaining({ agent_id: agent.id, search_mode: mode, result_count: res.body.data.length })]);
    const mean = res.body.data.length ? res.body.data.reduce((s: number, d: Hit) => s + d.score, 0) / res.body.data.length : null;
    if (mean === null) expect(recorded[0].avg_score).toBeNull();
    else expect(Number(recorded[0].avg_score)).toBeCloseTo(mean, 5);
    expect(Number(recorded[0].response_ms)).toBeGreaterThan(0);
  });

  it('records a search that matches nothing (an unknown agent name) with no results', async () => {
    const query = 'recorded query of nobody';
    expect((await search({ query, agent_id: 'nobody-at-all' })).body.data).toEqual([]);
    await t.ctx.searches.written();
    const recorded = await t.ctx.db.knex('search_events').where({ account_id: acct.accountId, query });
    expect(recorded).toEqual([expect.objectContaining({ agent_id: null, result_count: 0, avg_score: null })]);
  });

  // PGlite has one connection: a second one cannot hold the table while the search runs.
  (testBackend() === 'postgres' ? it : it.skip)('answers without waiting for its record, which stats and written() then wait for', async () => {
    const db = t.ctx.db.knex;
    const query = 'answered while its record waits for a lock';
    const hold = await db.transaction();
    try {
      // Blocks every INSERT into search_events until released, not the search's reads.
      await hold.raw('LOCK TABLE search_events IN EXCLUSIVE MODE');
      const res = await search({ query, agent_id: 'searcher' });
      expect(res.status).toBe(200);
      let written = false;
      const pending = t.ctx.searches.written().then(() => (written = true));
      await new Promise((r) => setImmediate(r));
      expect(written).toBe(false);
      await hold.commit();
      await pending;
    } finally {
      if (!hold.isCompleted()) await hold.rollback();
    }
    expect(await db('search_events').where({ account_id: acct.accountId, query })).toHaveLength(1);
  });

  it('answers a search whose record cannot be written, and records the next one', async () => {
    const db = t.ctx.db.knex;
    const failing = 'PostgreSQL vacuum settings tuned for the analytics database';
    // A real failure of the write: the database refuses this one record. (On Citus adding or
    // dropping a trigger on a distributed table, run on its shards, needs citus.enable_unsafe_triggers;
    // elsewhere the setting is a placeholder nothing reads.)
    await db.transaction(async (trx) => {
      await trx.raw('SET LOCAL citus.enable_unsafe_triggers = on');
      await trx.raw(`CREATE FUNCTION refuse_search_record() RETURNS trigger LANGUAGE plpgsql AS $$
                     BEGIN IF NEW.query = '${failing}' AND NEW.account_id = '${acct.accountId}' THEN RAISE EXCEPTION 'search_events refused'; END IF; RETURN NEW; END $$`);
      await trx.raw('CREATE TRIGGER refuse_search_record BEFORE INSERT ON search_events FOR EACH ROW EXECUTE FUNCTION refuse_search_record()');
    });
    const records = async () => (await db('search_events').where({ account_id: acct.accountId, query: failing })).length;
    try {
      const before = await records();
      const res = await search({ query: failing });
      await t.ctx.searches.written();
      expect(res.status).toBe(200);
      expect(res.body.data[0].memory.id).toBe(ids.pg);
      expect(await records()).toBe(before);
      expect((await search({ query: 'recorded after a refused one' })).status).toBe(200);
      await t.ctx.searches.written();
      expect(await db('search_events').where({ account_id: acct.accountId, query: 'recorded after a refused one' })).toHaveLength(1);
    } finally {
      await db.transaction(async (trx) => {
        await trx.raw('SET LOCAL citus.enable_unsafe_triggers = on');
        await trx.raw('DROP TRIGGER refuse_search_record ON search_events');
      });
      await db.raw('DROP FUNCTION refuse_search_record()');
    }
  });

  it.each([
    [{}, 'query'],
    [{ query: '' }, 'query'],
    [{ query: '  ' }, 'query'],
    [{ query: 'x'.repeat(10_001) }, 'query'],
    [{ query: 'x', limit: 0 }, 'limit'],
    [{ query: 'x', limit: 101 }, 'limit'],
    [{ query: 'x', min_score: 1.1 }, 'min_score'],
    [{ query: 'x', search_mode: 'fuzzy' }, 'search_mode'],
    [{ query: 'x', tier: 'tepid' }, 'tier'],
    [{ query: 'x', min_importance: -1 }, 'min_importance'],
    [{ query: 'x', metadata_filter: { team: { $regex: 'd.*' } } }, 'metadata_filter.team'],
    [{ query: 'x', metadata_filter: { team: { $in: 'data' } } }, 'metadata_filter.team'],
    [{ query: 'x', metadata_filter: { n: { $gt: [1] } } }, 'metadata_filter.n'],
    [{ query: 'x', metadata_filter: 'team=data' }, 'metadata_filter'],
  ])('rejects %j with 422 on %s', async (body, field) => {
    expect(expectError(await search(body), 422, 'validation_error').details!.map((d) => d.field)).toContain(field);
  });

  describe('bounds on a search (docs/api.md, "Bounds on a search")', () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, { $exists: false }]));
    const objects = (n: number) => Array.from({ length: n }, (_, i) => ({ shade: `s${i}` }));
    /** A filter of exactly `bytes` bytes of JSON: one string value padded to it. */
    const ofBytes = (bytes: number) => ({ note: 'x'.repeat(bytes - JSON.stringify({ note: '' }).length) });

    it.each([
      ['21 keys', keys(21), 'metadata_filter', 'metadata_filter must have at most 20 keys'],
      ['65,537 bytes of JSON', ofBytes(65_537), 'metadata_filter', 'metadata_filter must be at most 65536 bytes of JSON'],
      ['1,001 $in values', { team: { $in: Array.from({ length: 1_001 }, (_, i) => i) } }, 'metadata_filter.team', 'metadata_filter.team.$in must have at most 1000 values'],
      ['101 objects in $nin', { team: { $nin: objects(101) } }, 'metadata_filter.team', 'metadata_filter.team.$nin must have at most 100 objects or arrays'],
    ])('a metadata_filter of %s is 422 naming the limit', async (_name, metadata_filter, field, message) => {
      const err = expectError(await search({ query: 'database', metadata_filter }), 422, 'validation_error');
      expect(err.details).toEqual([{ field, message }]);
    });

    it('a metadata_filter at every bound is accepted and applied', async () => {
      for (const metadata_filter of [
        keys(20),
        ofBytes(65_536),
        { team: { $in: ['data', ...Array.from({ length: 999 }, (_, i) => i)] } },
        { team: { $in: ['data', ...objects(99), ['x']] } },
      ]) {
        const res = await search({ query: 'database', search_mode: 'hybrid', metadata_filter });
        expect(res.status).toBe(200);
      }
      const found = await search({ query: 'database', search_mode: 'keyword', metadata_filter: { team: { $in: ['data', ...objects(99), ['x']] } } });
      expect(contents(found)).toEqual(['PostgreSQL vacuum settings tuned for the analytics database']);
    });

    it('looks up 64 words of a longer query (900 words here): the rarest by the statistics, then the first', async () => {
      const filler = Array.from({ length: 900 }, (_, i) => `zq${i + 1000}`);
      const res = await search({ query: ['coffee', ...filler.slice(0, 62), 'eviction', ...filler.slice(62)].join(' '), search_mode: 'keyword' });
      expect(contents(res).sort()).toEqual(['Redis cache eviction policy set to allkeys-lru', 'The office coffee machine is descaled on Mondays']);
      const past = await search({ query: ['coffee', ...filler.slice(0, 63), 'eviction'].join(' '), search_mode: 'keyword' });
      expect(contents(past)).toEqual(['The office coffee machine is descaled on Mondays']);
      // Web-search syntax past 64 words is ranked as plain words: every word an alternative would make every row a candidate.
      const alternatives = await search({ query: ['eviction', ...filler.slice(0, 100)].join(' or '), search_mode: 'keyword' });
      expect(contents(alternatives)).toEqual(['Redis cache eviction policy set to allkeys-lru']);
    });
  });

  it('accepts limit 1 and 100 and a 10,000-character query', async () => {
    expect((await search({ query: 'database', limit: 1 })).body.data).toHaveLength(1);
    expect((await search({ query: 'database', limit: 100 })).status).toBe(200);
    expect((await search({ query: 'y'.repeat(10_000) })).status).toBe(200);
  });

  it('answers 404 for an unknown agent UUID and nothing for an unknown agent name', async () => {
    expectError(await search({ query: 'x', agent_id: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found');
    expect((await search({ query: 'database', agent_id: 'nobody-by-this-name' })).body.data).toEqual([]);
  });
});

// PostgreSQL on the PGlite run too: these are the server's planner and HNSW index at scale, and
// 5,000 rows through WASM PGlite take minutes.
describe('semantic search at scale', () => {
  let t: TestApp;
  let acct: TestAccount;
  beforeAll(async () => {
    t = await createTestApp({}, { backend: 'postgres' });
    acct = await createAccount(t.ctx);
    // 1,000 memories: 99 % belong to one agent, 1 % (10) to another.
    for (let b = 0; b < 10; b++) {
      const memories = Array.from({ length: 100 }, (_, i) => ({
        content: `log line ${b * 100 + i} about service ${i % 17} latency and deployment ${i % 7}`,
        agent_id: b === 0 && i % 10 === 0 ? 'rare' : 'bulk',
      }));
      const res = await t.request().post('/v1/memories/batch').set(bearer(acct.key)).send({ memories });
      expect(res.body.failed).toBe(0);
    }
    await t.ctx.db.knex.raw('ANALYZE memories');
  }, 120_000);
  afterAll(() => t.close());

  it('returns the full limit for an agent holding 1 % of the rows (no HNSW over-filtering)', async () => {
    const count = await t.ctx.db.knex('memories').where({ account_id: acct.accountId }).count<{ count: number }[]>('* as count');
    expect(Number(count[0]!.count)).toBe(1000);
    const rare = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query: 'service latency', agent_id: 'rare', limit: 10 });
    expect(rare.body.data).toHaveLength(10);
    expect(rare.body.meta.recalled_count).toBe(10);
  });

  it('binds a query vector as a parameter (binary on PostgreSQL, text on PGlite) that ranks as its text literal does', async () => {
    const db = t.ctx.db.knex;
    const f = { accountId: acct.accountId, includeArchived: false, includeConfidential: false, embeddingModel: t.ctx.embedder.model };
    const [v] = await t.ctx.embedder.embed(['service 7 latency']);
    const param: BoundVector = new VectorParam(v!);
    // The value PostgreSQL received is the vector, to float4's precision.
    const { rows } = await db.raw('SELECT ?::vector::text AS v, vector_dims(?::vector) AS dims', [param, param]);
    expect(rows[0].dims).toBe(384);
    expect(JSON.parse(rows[0].v)).toEqual(Array.from(v!).map((x) => expect.closeTo(x, 6)));
    expect(await memoriesRepository.semanticCandidates(db, f, param, 20)).toEqual(await memoriesRepository.semanticCandidates(db, f, toPgVector(v!), 20));
    const hits = await searchHitsRepository.nearest(db, f, param, 10);
    expect(hits.map((h) => h.id)).toEqual((await memoriesRepository.semanticCandidates(db, f, param, 10)).map((c) => c.id));
    // A component that is not a number is refused before any statement is sent.
    const broken = new Float32Array(v!);
    broken[3] = Number.NaN;
    await expect(memoriesRepository.semanticCandidates(db, f, new VectorParam(broken), 5)).rejects.toThrow('vector component 3 is not a finite number');
  });

  it('ranks a hybrid search as reciprocalRankFusion ranks its three lists', async () => {
    const query = 'service 3 latency and deployment 5';
    const db = t.ctx.db.knex;
    const agent = await db('agents').where({ account_id: acct.accountId, name: 'bulk' }).first();
    const f = { accountId: acct.accountId, agentId: agent.id, includeArchived: false, includeConfidential: false, embeddingModel: t.ctx.embedder.model };
    const vector = toPgVector((await t.ctx.embedder.embed([query]))[0]!);
    const lists = {
      semantic: await memoriesRepository.semanticCandidates(db, f, vector, 30),
      keyword: await memoriesRepository.keywordCandidates(db, t.ctx.commonWords, f, query, 30),
      graph: await memoriesRepository.graphCandidates(db, f, entityNamesInQuery(query), 30),
    };
    expect(lists.semantic).toHaveLength(30);
    expect(lists.keyword.length).toBeGreaterThan(0);
    const expected = reciprocalRankFusion(lists);
    const top = (n: number, floor = -Infinity) => expected.filter((c) => c.score >= floor).slice(0, n);

    // min_score and limit apply to the fused scores.
    const floor = expected[4]!.score - 1e-9;

    // Through the API, with the breakdown.
    const res = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query, search_mode: 'hybrid', agent_id: 'bulk', debug: true });
    expect(res.status).toBe(200);
    expect(res.body.meta.total_evaluated).toBe(expected.length);
    expect(res.body.data.map((d: Hit) => [d.memory.id, d.score])).toEqual(top(10).map((c) => [c.id, Math.round(c.score * 1e6) / 1e6]));
    expect(res.body.data.map((d: Hit) => d.score_breakdown)).toEqual(top(10).map((c) => ({ mode: 'hybrid', rrf: expect.closeTo(c.score, 12), ranks: c.ranks, scores: c.scores, factors: expect.any(Object) })));
    const above = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query, search_mode: 'hybrid', agent_id: 'bulk', min_score: floor, limit: 3 });
    expect(above.body.data.map((d: Hit) => d.memory.id)).toEqual(top(3, floor).map((c) => c.id));
  });

  it('uses the HNSW index for semantic search once the table is big enough for the planner to prefer it', async () => {
    // 4,000 more rows (5,000 in all) in one statement; random unit-ish vectors are enough for a plan.
    await t.ctx.db.knex.raw(
      `INSERT INTO memories (account_id, agent_id, content, memory_type, tier, embedding, embedding_model)
       SELECT m.account_id, m.agent_id, 'filler ' || g, 'fact', 'warm',
              (SELECT array_agg(random() - 0.5)::vector FROM generate_series(1, 384) WHERE g > 0), m.embedding_model
         FROM generate_series(1, 4000) g, (SELECT * FROM memories WHERE account_id = ? LIMIT 1) m`,
      [acct.accountId],
    );
    await t.ctx.db.knex.raw('ANALYZE memories');
    const [vector] = await t.ctx.embedder.embed(['service latency']);
    const plan = await memoriesRepository.explainSemantic(
      t.ctx.db.knex,
      { accountId: acct.accountId, includeArchived: false, includeConfidential: false, embeddingModel: t.ctx.embedder.model },
      toPgVector(vector!),
      10,
    );
    expect(plan).toContain('memories_vector_384_idx');
    // Built with 12 links a node (migration 025), like every vector table's index.
    const { rows } = await t.ctx.db.knex.raw(`SELECT tablename, indexdef FROM pg_indexes WHERE indexdef LIKE '%USING hnsw%' ORDER BY tablename`);
    expect(rows.map((r: { tablename: string }) => r.tablename)).toEqual(['decisions', 'memories', 'patterns']);
    for (const r of rows) expect(r.indexdef).toMatch(/WITH \(m='12', ef_construction='64'\) WHERE/);
  });
});
