import type { UsageMeter } from '@ams/accounts';
import type { Config, Logger } from '@ams/core';
import type { CommonWords, Database, SearchRecorder } from '@ams/db';
import type { Embedder } from '@ams/embeddings';
import type { ModelLoader, ReembedRunner } from '@ams/ingestion';
import type { Dispatch, IngestionPort } from '@ams/memories';
import type { ApiMetrics } from '@ams/metrics';
import type { ImportJobsPort } from '@ams/portability';
import type { ReadRouting } from './read-routing';
import type { RedisConnection } from './redis';

/** What every process has. */
export interface ProcessContext {
  config: Config;
  logger: Logger;
  db: Database;
}

/** Everything an API request handler may reach; built once per process by start('api' | 'embedded'). */
export interface ApiContext extends ProcessContext {
  /** Absent in embedded mode. */
  redis?: RedisConnection;
  embedder: Embedder;
  /** Loads other models (a re-embed's target). Absent: re-embedding is not offered. */
  models?: ModelLoader;
  /** Keyword ranking's memory of common words over `db`; closed before `db` is. */
  commonWords: CommonWords;
  /** Writes each search's record after its answer, with others' (on `db`); awaited before `db` closes. */
  searches: SearchRecorder;
  /**
   * Hands webhook deliveries, recorded in a transaction that has committed, to the dispatcher
   * (the queue in split mode, the in-process dispatcher in embedded mode). Never throws.
   * Absent: deliveries wait in the outbox for a dispatcher's sweep.
   */
  webhookDispatch?: Dispatch;
  /** The embedding worker's front door (background-work.ts). Absent: every embedding happens in the request. */
  ingestion?: IngestionPort;
  /** The re-embed runner: takes runs in embedded mode, follows the active model in split mode. */
  reembedRunner?: ReembedRunner;
  /** This process's Prometheus metrics (its one registry). */
  metrics: ApiMetrics;
  /** The read replicas and the keys' write fences (DATABASE_REPLICA_URLS); absent: every read is the primary's. */
  readRouting?: ReadRouting;
  /** This process's import jobs. */
  imports: ImportJobsPort;
  /** The accounts' limits (cached) and daily activity counts (flushed about once a second). */
  usage: UsageMeter;
}
