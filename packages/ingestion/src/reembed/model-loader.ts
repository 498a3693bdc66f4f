import type { Config } from '@ams/core';
import { createEmbedder, Embedder, LexicalEmbedder, modelFilesPresent, withQueryCache } from '@ams/embeddings';

const LEXICAL_MODEL = new LexicalEmbedder().model;

/** Loads embedders by model name, once each per process: a re-embed's target, or the active model after a switch. */
export interface ModelLoader {
  /** Whether `model` can be loaded here without the network (its files are in MODEL_DIR). */
  available(model: string): boolean;
  load(model: string): Promise<Embedder>;
}

/**
 * Models come from MODEL_DIR only: a re-embed never downloads (fetch the model first with
 * `EMBEDDING_MODEL=<model> npm run model:download`). Each gets the process's query cache.
 */
export function modelLoader(config: Config, seed: Embedder[] = []): ModelLoader {
  const loaded = new Map<string, Promise<Embedder>>(seed.map((e) => [e.model, Promise.resolve(e)]));
  const { modelDir, quantized } = config.embedding;
  return {
    available: (model) => model === LEXICAL_MODEL || loaded.has(model) || modelFilesPresent(modelDir, model, quantized),
    load(model) {
      let embedder = loaded.get(model);
      if (!embedder) {
        embedder =
          model === LEXICAL_MODEL
            ? Promise.resolve(new LexicalEmbedder())
            : createEmbedder({ ...config.embedding, provider: 'transformers', model, allowRemoteModels: false, allowLexicalFallback: false }).then((e) =>
                withQueryCache(e, { size: config.embedding.queryCacheSize }),
              );
        // A failed load is tried again next time (the files may arrive).
        embedder.catch(() => loaded.delete(model));
        loaded.set(model, embedder);
      }
      return embedder;
    },
  };
}
