import type { Logger } from '@ams/core';
import type { Db } from '@ams/db';
import type { Embedder } from '@ams/embeddings';
import type { ModelLoader, ReembedRunner } from '@ams/ingestion';

export type { AuthContext } from '@ams/accounts';

/** The database and this process's model (the active one until a re-embed run records another). */
export interface VectorDeps {
  db: Db;
  embedder: Embedder;
}

/** What starting a re-embed run takes besides: the model to move to by default, and the means to load it. */
export interface ReembedDeps extends VectorDeps {
  logger: Logger;
  /** EMBEDDING_MODEL: the target when a request names none. */
  defaultModel: string;
  /** Loads other models (a re-embed's target). Absent: re-embedding is not offered. */
  models?: ModelLoader;
  /** The in-process re-embed runner (embedded mode): woken when a run starts. */
  reembedRunner?: ReembedRunner;
}
