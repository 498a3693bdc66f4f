import type { Config, Logger } from '@ams/core';
import type { Database } from '@ams/db';
import type { Embedder } from '@ams/embeddings';
import type { Caller } from '@ams/memories';

/** Who is asking: an account, and the agent its key is bound to. */
export type AuthContext = Caller;

/** The process's resources export and import use (the API's context satisfies it). */
export interface AppContext {
  config: Config;
  logger: Logger;
  db: Database;
  embedder: Embedder;
}
