import { Registry } from 'prom-client';
import { Embedder, embedQuery, LexicalEmbedder, QueryCachingEmbedder, withQueryCache } from '../../src';

/** The lexical embedder, counting what reaches the "model". */
class CountingEmbedder implements Embedder {
  readonly provider = 'lexical' as const;
  readonly dimensions = 384;
  calls: string[][] = [];
  private readonly inner = new LexicalEmbedder();
  constructor(readonly model = 'counting') {}
  async embed(texts: string[]) {
    this.calls.push(texts);
    return this.inner.embed(texts);
  }
}

const counterValue = async (registry: Registry, name: string, model: string) =>
  ((await registry.getSingleMetric(name)!.get()).values.find((v) => v.labels.model === model)?.value ?? 0);

describe('query embedding cache', () => {
  it('skips the model on a repeated query and counts hits and misses', async () => {
    const registry = new Registry();
    const inner = new CountingEmbedder();
    const cached = new QueryCachingEmbedder(inner, { size: 10, registry });
    const first = await cached.embedQuery('postgres vacuum');
    const again = await cached.embedQuery('postgres vacuum');
    expect(Array.from(again)).toEqual(Array.from(first));
    expect(Array.from(first)).toEqual(Array.from((await new LexicalEmbedder().embed(['postgres vacuum']))[0]!));
    expect(inner.calls).toEqual([['postgres vacuum']]);
    expect(await counterValue(registry, 'ams_query_embedding_cache_hits_total', 'counting')).toBe(1);
    expect(await counterValue(registry, 'ams_query_embedding_cache_misses_total', 'counting')).toBe(1);
  });

  it('hands out copies: a caller changing its vector does not change the cache', async () => {
    const cached = new QueryCachingEmbedder(new CountingEmbedder(), { size: 10, registry: new Registry() });
    const v = await cached.embedQuery('q');
    const original = Array.from(v);
    v.fill(0);
    expect(Array.from(await cached.embedQuery('q'))).toEqual(original);
  });

  it('is bounded: the least recently used query goes first', async () => {
    const inner = new CountingEmbedder();
    const cached = new QueryCachingEmbedder(inner, { size: 2, registry: new Registry() });
    await cached.embedQuery('a');
    await cached.embedQuery('b');
    await cached.embedQuery('a'); // a is now the most recent
    await cached.embedQuery('c'); // evicts b
    expect(cached.size).toBe(2);
    inner.calls = [];
    await cached.embedQuery('a');
    await cached.embedQuery('b');
    expect(inner.calls).toEqual([['b']]);
  });

  it('shares one model call between concurrent misses of the same query', async () => {
    const inner = new CountingEmbedder();
    const cached = new QueryCachingEmbedder(inner, { size: 10, registry: new Registry() });
    await Promise.all([cached.embedQuery('same'), cached.embedQuery('same'), cached.embedQuery('same')]);
    expect(inner.calls).toEqual([['same']]);
  });

  it('keeps models apart: counters by model, two embedders on one registry', async () => {
    const registry = new Registry();
    const a = new QueryCachingEmbedder(new CountingEmbedder('model-a'), { size: 10, registry });
    const b = new QueryCachingEmbedder(new CountingEmbedder('model-b'), { size: 10, registry });
    await a.embedQuery('x');
    await b.embedQuery('x');
    await b.embedQuery('x');
    expect(await counterValue(registry, 'ams_query_embedding_cache_misses_total', 'model-a')).toBe(1);
    expect(await counterValue(registry, 'ams_query_embedding_cache_hits_total', 'model-b')).toBe(1);
    expect(await counterValue(registry, 'ams_query_embedding_cache_hits_total', 'model-a')).toBe(0);
  });

  it('passes document embeddings and the embedder identity through; size 0 means no cache', async () => {
    const inner = new CountingEmbedder();
    const cached = withQueryCache(inner, { size: 5, registry: new Registry() });
    expect(cached).toMatchObject({ provider: 'lexical', model: 'counting', dimensions: 384 });
    await cached.embed(['doc one', 'doc two']);
    await cached.embed(['doc one', 'doc two']);
    expect(inner.calls).toHaveLength(2);
    const plain = withQueryCache(inner, { size: 0 });
    expect(plain).toBe(inner);
    inner.calls = [];
    await embedQuery(plain, 'q');
    await embedQuery(plain, 'q');
    expect(inner.calls).toEqual([['q'], ['q']]);
  });
});
