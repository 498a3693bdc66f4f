import type { Logger } from '@ams/core';
import type { Db } from '@ams/db';
import type { Embedder } from '@ams/embeddings';
import type { RecordRules } from './import/record-rules';

export type { Caller } from '@ams/memories';

/** What an export reads: the database, and the model its header names (vectors are that model's). */
export interface ExportDeps {
  db: Db;
  embedder: Pick<Embedder, 'model' | 'dimensions'>;
}

/** What importing one file takes: the database, the model for records without its vectors, the record rules. */
export interface ImportRunDeps {
  db: Db;
  embedder: Embedder;
  rules: RecordRules;
}

/** The process's import jobs: besides a run's needs, a logger and the limits (IMPORT_MAX_BYTES, IMPORT_STALE_AFTER_MS). */
export interface ImportJobsDeps extends ImportRunDeps {
  logger: Logger;
  maxBytes: number;
  staleAfterMs: number;
}
