import type { Config, Logger } from '@ams/core';
import type { Database } from '@ams/db';
import { createEmbedder, SwitchableEmbedder, withQueryCache, type Embedder } from '@ams/embeddings';
import { followActiveModel, modelLoader, type ModelLoader } from '@ams/ingestion';
import type { Registry } from 'prom-client';

export interface EmbedderStack {
  embedder: Embedder;
  /** Loads other models (a re-embed's target). */
  models: ModelLoader;
}

/**
 * The configured model behind a query cache (the API's, counted into `queryCache.registry`), inside a
 * switchable embedder that follows the store's active model: the active model wins over the
 * configured one until a re-embed switches (ams reembed). `given` (tests, benches) is used as it is.
 */
export async function embedderStack(
  config: Config,
  deps: { db: Database; logger: Logger },
  opts: { queryCache?: { registry: Registry }; given?: Embedder },
): Promise<EmbedderStack> {
  if (opts.given) return { embedder: opts.given, models: modelLoader(config, [opts.given]) };
  const loaded = await createEmbedder(config.embedding, deps.logger);
  const configured = opts.queryCache ? withQueryCache(loaded, { size: config.embedding.queryCacheSize, registry: opts.queryCache.registry }) : loaded;
  const models = modelLoader(config, [configured]);
  const embedder = new SwitchableEmbedder(configured);
  await followActiveModel({ db: deps.db.knex, embedder, models, logger: deps.logger });
  deps.logger.info('embedder ready', { provider: embedder.provider, model: embedder.model, dimensions: embedder.dimensions });
  return { embedder, models };
}
