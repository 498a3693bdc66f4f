import type { Embedder } from './embedder';
import { EMBEDDING_DIMENSIONS } from './embedder';
import { LexicalEmbedder } from './lexical-embedder';
import { missingModelMessage, modelFilesPresent, TransformersEmbedder } from './transformers-embedder';

export interface EmbedderConfig {
  provider: 'transformers' | 'lexical';
  model: string;
  modelDir: string;
  allowRemoteModels: boolean;
  quantized: boolean;
  allowLexicalFallback: boolean;
}

/**
 * The configured embedder, loaded eagerly so start-up fails fast. A missing model falls back to
 * the lexical embedder only where allowed (embedded mode), loudly; in production it is an error.
 */
export async function createEmbedder(
  config: EmbedderConfig,
  logger?: { warn(message: string, meta?: Record<string, unknown>): void },
): Promise<Embedder> {
  if (config.provider === 'lexical') return new LexicalEmbedder();
  if (!config.allowRemoteModels && !modelFilesPresent(config.modelDir, config.model, config.quantized)) {
    const message = missingModelMessage(config.modelDir, config.model, config.quantized);
    if (!config.allowLexicalFallback) throw new Error(message);
    logger?.warn(`${message} Falling back to the lexical embedder: search quality is reduced.`);
    return new LexicalEmbedder();
  }
  const embedder = new TransformersEmbedder(config);
  await embedder.load();
  if (embedder.dimensions !== EMBEDDING_DIMENSIONS) {
    throw new Error(
      `Embedding model ${config.model} produces ${embedder.dimensions} dimensions; the database stores ` +
        `${EMBEDDING_DIMENSIONS}. Choose a ${EMBEDDING_DIMENSIONS}-dimension model (EMBEDDING_MODEL) or add a migration.`,
    );
  }
  return embedder;
}
