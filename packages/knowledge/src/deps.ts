import type { Db } from '@ams/db';
import type { Embedder } from '@ams/embeddings';

export type { Caller } from '@ams/memories';

/** The database these rules read and write (for a read, the caller may bind it to its request). */
export interface StoreDeps {
  db: Db;
}

/** The database and the model that embeds decisions, patterns and queries (its name tags each vector). */
export interface EmbeddingDeps extends StoreDeps {
  embedder: Embedder;
}
