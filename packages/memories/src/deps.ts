import type { Logger } from '@ams/core';
import type { CommonWords, Db, MemoryRow, SearchRecorder } from '@ams/db';
import type { Embedder } from '@ams/embeddings';

/** Hands webhook deliveries, recorded in a transaction that has committed, to the dispatcher. Never throws. */
export type Dispatch = (accountId: string, deliveryIds: string[]) => void;

/** The embedding worker's front door. */
export interface IngestionPort {
  /**
   * Hands a pending memory to the worker: the job id, or null when no queue can take it (then the
   * request embeds it). May answer before the queue has the job: the row is the record, swept up
   * by the workers if the job never arrives.
   */
  submit(accountId: string, memoryId: string): Promise<string | null>;
  /** Seconds until a memory handed over now is ready (integer, at least 1). */
  estimateSeconds(): Promise<number>;
}

/**
 * What the memory domain works with; each function takes only the members it uses. A request
 * passes its own logger (carrying request_id and account_id), so every line it causes names it.
 */
export interface MemoryDeps {
  /** For a read, bound to the request (its statements stop when the request is abandoned). */
  db: Db;
  /** The process's writer of search records (written after the answer, on the primary). */
  searches: SearchRecorder;
  /** Keyword ranking's memory of common words: the process's, made and closed with its context. */
  commonWords: CommonWords;
  embedder: Embedder;
  logger: Logger;
  dispatch?: Dispatch;
  /** Absent: every embedding happens in the request. */
  ingestion?: IngestionPort;
  /** Embeds a pending memory now, through the worker's code; the row as it then stands. */
  embedNow(accountId: string, memoryId: string): Promise<MemoryRow>;
  /** Told each search's mode and duration (the API's metrics). */
  onSearch?: (mode: string, seconds: number) => void;
}

/** Who is asking: an account, and the agent its key is bound to (null: any agent of the account). */
export interface Caller {
  accountId: string;
  agentId: string | null;
  /** The API key making the request, recorded as who changed a memory (absent: the system). */
  keyId?: string;
}
