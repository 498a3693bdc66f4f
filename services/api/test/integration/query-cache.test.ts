import { Registry } from 'prom-client';
import { Embedder, LexicalEmbedder, withQueryCache } from '@ams/embeddings';
import { bearer, createAccount, createTestApp, expectError, operatorKey, TestAccount, TestApp } from '@ams/testing';

/** The lexical embedder under a model name of this test's own, counting what reaches it. */
class CountingEmbedder implements Embedder {
  readonly provider = 'lexical' as const;
  readonly dimensions = 384;
  readonly model = new LexicalEmbedder().model;
  texts: string[] = [];
  private readonly inner = new LexicalEmbedder();
  async embed(texts: string[]) {
    this.texts.push(...texts);
    return this.inner.embed(texts);
  }
}

describe('query embedding cache in search and context', () => {
  let t: TestApp;
  let acct: TestAccount;
  const counting = new CountingEmbedder();
  const metricValue = (text: string, name: string) =>
    Number(new RegExp(`^${name}\\{model="${counting.model}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

  beforeAll(async () => {
    const registry = new Registry();
    t = await createTestApp({}, { embedder: withQueryCache(counting, { size: 100, registry }), metricsRegistry: registry });
    acct = await createAccount(t.ctx);
    await t.request().post('/v1/memories').set(bearer(acct.key)).send({ agent_id: 'cache', content: 'PostgreSQL vacuum settings for analytics' }).expect(201);
  });
  afterAll(() => t.close());

  it('a repeated search query skips the model, and /metrics counts the hit', async () => {
    const query = `vacuum tuning ${Date.now()}`;
    const operator = await operatorKey(t.ctx);
    const before = (await t.request().get('/metrics').set(bearer(operator)).expect(200)).text;
    counting.texts = [];
    const first = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query }).expect(200);
    const second = await t.request().post('/v1/memories/search').set(bearer(acct.key)).send({ query, search_mode: 'hybrid' }).expect(200);
    expect(second.body.data[0].memory.id).toBe(first.body.data[0].memory.id);
    // The context build searches with the same query: no model call either.
    await t.request().post('/v2/context/build').set(bearer(acct.key)).send({ query, agent_id: 'cache' }).expect(200);
    expect(counting.texts.filter((x) => x === query)).toHaveLength(1);

    const after = (await t.request().get('/metrics').set(bearer(operator)).expect(200)).text;
    expect(metricValue(after, 'ams_query_embedding_cache_misses_total') - metricValue(before, 'ams_query_embedding_cache_misses_total')).toBe(1);
    expect(metricValue(after, 'ams_query_embedding_cache_hits_total') - metricValue(before, 'ams_query_embedding_cache_hits_total')).toBeGreaterThanOrEqual(1);
  });

  it('/metrics needs an admin key', async () => {
    const reader = await acct.keyWith(['read']);
    expectError(await t.request().get('/metrics').set(bearer(reader)), 403, 'authorization_error');
    expectError(await t.request().get('/metrics'), 401, 'unauthorized');
  });
});
