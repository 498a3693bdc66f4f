/** The default model's (and the lexical embedder's) vector size; the columns take any size. */
export const EMBEDDING_DIMENSIONS = 384;
/** The most components pgvector's HNSW index takes (its `vector` opclasses). */
export const MAX_INDEXED_DIMENSIONS = 2000;

export interface Embedder {
  readonly provider: 'transformers' | 'lexical';
  /** Stored with every vector; search compares only vectors of the current model. */
  readonly model: string;
  readonly dimensions: number;
  /** Why a lexical embedder stands in for the configured model, when it does. */
  readonly fallbackReason?: string;
  /** One vector per text, L2-normalised, in input order. */
  embed(texts: string[]): Promise<Float32Array[]>;
}
