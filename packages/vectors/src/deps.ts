import type { Config, Logger } from '@ams/core';
import type { Database } from '@ams/db';
import type { Embedder } from '@ams/embeddings';
import type { ModelLoader, ReembedRunner } from '@ams/ingestion';

export type { AuthContext } from '@ams/accounts';

/** The process's resources these rules use (the API's context satisfies it). */
export interface AppContext {
  config: Config;
  logger: Logger;
  db: Database;
  embedder: Embedder;
  /** Loads other models (a re-embed's target). Absent: re-embedding is not offered. */
  models?: ModelLoader;
  /** The in-process re-embed runner (embedded mode): woken when a run starts. */
  reembedRunner?: ReembedRunner;
}
