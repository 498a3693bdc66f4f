import type { Embedder } from './embedder';
import { MAX_INDEXED_DIMENSIONS } from './embedder';
import { downloadModel } from './download/download-model';
import { DownloadProgress, progressFor } from './download/progress';
import { LexicalEmbedder } from './lexical-embedder';
import { missingModelMessage, ModelThreadChoice, modelFilesPresent, TransformersEmbedder } from './transformers-embedder';

export interface EmbedderConfig {
  provider: 'transformers' | 'lexical';
  model: string;
  modelDir: string;
  /** Fetch missing model files from modelHost before loading. */
  allowRemoteModels: boolean;
  modelHost: string;
  quantized: boolean;
  thread?: ModelThreadChoice;
  intraOpThreads?: number;
  allowLexicalFallback: boolean;
}

interface StartLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
}

/** Test seams: how the download reports and how hard it tries. */
export interface CreateEmbedderOptions {
  progress?: DownloadProgress;
  attempts?: number;
  retryDelayMs?: number;
}

/**
 * The configured embedder, loaded eagerly so start-up fails fast. Missing model files are fetched
 * first where remote loading is allowed (embedded mode by default). When the model cannot be had,
 * embedded mode falls back to the lexical embedder with one line saying why (and health says so);
 * split mode refuses to start.
 */
export async function createEmbedder(config: EmbedderConfig, logger?: StartLogger, options: CreateEmbedderOptions = {}): Promise<Embedder> {
  if (config.provider === 'lexical') return new LexicalEmbedder();
  const fallback = (reason: string): Embedder => {
    if (!config.allowLexicalFallback) throw new Error(reason);
    logger?.warn(`${reason} Falling back to the lexical embedder: search quality is reduced.`);
    return new LexicalEmbedder(reason);
  };
  if (!modelFilesPresent(config.modelDir, config.model, config.quantized)) {
    if (!config.allowRemoteModels) return fallback(missingModelMessage(config.modelDir, config.model, config.quantized));
    logger?.info('embedding model not found locally; downloading it', { model: config.model, host: config.modelHost, model_dir: config.modelDir });
    try {
      await downloadModel({
        host: config.modelHost,
        model: config.model,
        modelDir: config.modelDir,
        quantized: config.quantized,
        progress: options.progress ?? (logger ? progressFor(logger) : undefined),
        attempts: options.attempts,
        retryDelayMs: options.retryDelayMs,
      });
    } catch (err) {
      return fallback(`Could not download embedding model ${config.model} from ${config.modelHost}: ${(err as Error).message}.`);
    }
  }
  const embedder = new TransformersEmbedder({ ...config, allowRemoteModels: false });
  await embedder.load();
  // The columns take any size; HNSW (the search index) stops at 2000.
  if (embedder.dimensions > MAX_INDEXED_DIMENSIONS) {
    throw new Error(
      `Embedding model ${config.model} produces ${embedder.dimensions} dimensions; the vector index holds at most ` +
        `${MAX_INDEXED_DIMENSIONS}. Choose a smaller model (EMBEDDING_MODEL).`,
    );
  }
  return embedder;
}
