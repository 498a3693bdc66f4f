import type { Readable } from 'node:stream';
import type { ImportJobRow } from '@ams/db';

export interface ImportOptions {
  on_conflict: 'skip' | 'overwrite';
  /** As on a create; absent: a create's rule, except in an export (its entities travel as records of their own). */
  auto_extract_entities?: boolean;
}

/** What the app reaches of the process's import jobs (import-jobs.ts), without depending on the importer. */
export interface ImportJobsPort {
  start(accountId: string, body: Readable, q: ImportOptions): Promise<ImportJobRow>;
  get(accountId: string, id: string): Promise<ImportJobRow>;
  /** Runs failStale now, then every IMPORT_STALE_AFTER_MS until close: a dead process's job reads failed with no GET. */
  startSweeping(): void;
  /** Fails the running jobs, of any account, whose process stopped (no heartbeat); answers their ids. */
  failStale(): Promise<string[]>;
  /** Stops every running job after the batch it is writing. */
  close(): Promise<void>;
  /** Resolves when the job has ended in this process. */
  settled(id: string): Promise<void>;
}
