import type { AuthContext } from '@ams/accounts';
import type { Config, Logger } from '@ams/core';
import type { CommonWords, Database, SearchRecorder } from '@ams/db';
import type { Embedder } from '@ams/embeddings';
import type { ModelLoader, ReembedRunner } from '@ams/ingestion';
import type { Dispatch, IngestionPort } from '@ams/memories';
import type { ImportJobsPort } from '@ams/portability';
import type { ApiMetrics } from './lib/api-metrics';
import type { ReadRouting } from './lib/read-routing';
import type { RedisConnection } from './lib/redis';

/** Everything a request handler may reach; built once per process by server.ts (or a test). */
export interface AppContext {
  config: Config;
  logger: Logger;
  db: Database;
  /** Absent in embedded mode. */
  redis?: RedisConnection;
  embedder: Embedder;
  /** Keyword ranking's memory of common words over `db`; closed before `db` is. */
  commonWords: CommonWords;
  /** Writes each search's record after its answer, with others' (on `db`); awaited before `db` closes. */
  searches: SearchRecorder;
  /**
   * Hands webhook deliveries, recorded in a transaction that has committed, to the dispatcher
   * (the queue in split mode, the in-process dispatcher in embedded mode). Never throws.
   */
  webhookDispatch?: Dispatch;
  /** The embedding worker's front door (lib/ingestion.ts). Absent: every embedding happens in the request. */
  ingestion?: IngestionPort;
  /** This process's Prometheus metrics; createApp makes them when absent. */
  metrics?: ApiMetrics;
  /** Loads other models (a re-embed's target). Absent: re-embedding is not offered. */
  models?: ModelLoader;
  /** The in-process re-embed runner (embedded mode): woken when a run starts. */
  reembedRunner?: ReembedRunner;
  /** The read replicas and the keys' write fences (DATABASE_REPLICA_URLS); absent: every read is the primary's. */
  readRouting?: ReadRouting;
  /** This process's import jobs; createApp makes them when absent. */
  imports?: ImportJobsPort;
}

export type { AuthContext };

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
    /** The process logger's child carrying request_id (and account_id once authenticated): pass it to services. */
    log: Logger;
    auth?: AuthContext;
    /** Why authentication failed, raised by requireAuth after the rate limiter has counted the request. */
    authFailure?: 'missing' | 'invalid' | 'expired' | 'revoked';
  }
}
