import { LRUCache } from 'lru-cache';
import { Counter, register as defaultRegistry, Registry } from 'prom-client';
import type { Embedder } from './embedder';

/** An embedder that also answers search queries, possibly from a cache. */
export interface QueryEmbedder extends Embedder {
  embedQuery(text: string): Promise<Float32Array>;
}

export interface QueryCacheOptions {
  /** Entries kept (least recently used go first); 0 means no cache. */
  size: number;
  /** Where the hit and miss counters live; default prom-client's global registry (the API's /metrics). */
  registry?: Registry;
}

function counter(registry: Registry, name: string, help: string): Counter<'model'> {
  // Several embedders (tests, a model switch) share one registry: reuse a counter already there.
  return (registry.getSingleMetric(name) as Counter<'model'> | undefined) ?? new Counter({ name, help, labelNames: ['model'], registers: [registry] });
}

/**
 * Wraps an embedder so a repeated search query skips the model: an LRU of query vectors keyed by
 * model and text (a vector of one model is never served for another). Concurrent misses of the
 * same query share one model call. Document embeddings (embed) pass straight through.
 */
export class QueryCachingEmbedder implements QueryEmbedder {
  private readonly cache: LRUCache<string, Float32Array>;
  private readonly hits: Counter<'model'>;
  private readonly misses: Counter<'model'>;

  constructor(
    readonly inner: Embedder,
    options: QueryCacheOptions,
  ) {
    const registry = options.registry ?? defaultRegistry;
    this.hits = counter(registry, 'ams_query_embedding_cache_hits_total', 'Search queries whose embedding came from the cache, by model.');
    this.misses = counter(registry, 'ams_query_embedding_cache_misses_total', 'Search queries embedded by the model, by model.');
    this.cache = new LRUCache<string, Float32Array>({
      max: Math.max(1, options.size),
      fetchMethod: async (key) => (await this.inner.embed([key.slice(key.indexOf('\u0000') + 1)]))[0]!,
    });
  }

  get provider() {
    return this.inner.provider;
  }
  get model() {
    return this.inner.model;
  }
  get dimensions() {
    return this.inner.dimensions;
  }
  get fallbackReason() {
    return this.inner.fallbackReason;
  }
  get size() {
    return this.cache.size;
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    return this.inner.embed(texts);
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const status: LRUCache.Status<string, Float32Array> = {};
    const vector = await this.cache.fetch(`${this.model}\u0000${text}`, { status });
    // A query joining the same query's model call in flight skipped the model too.
    (status.fetch === 'hit' || status.fetch === 'inflight' ? this.hits : this.misses).inc({ model: this.model });
    // A copy: callers may normalise or otherwise change the vector they get.
    return Float32Array.from(vector!);
  }
}

/** The embedder with a query cache in front, or as it is when the size is 0. */
export function withQueryCache(embedder: Embedder, options: QueryCacheOptions): Embedder {
  return options.size > 0 ? new QueryCachingEmbedder(embedder, options) : embedder;
}

/** One search query's vector: from the cache when the embedder has one, else one model call. */
export async function embedQuery(embedder: Embedder, text: string): Promise<Float32Array> {
  if ('embedQuery' in embedder && typeof embedder.embedQuery === 'function') return (embedder as QueryEmbedder).embedQuery(text);
  return (await embedder.embed([text]))[0]!;
}
