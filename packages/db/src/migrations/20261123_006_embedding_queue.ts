import type { Migration } from './migration';

export const embeddingQueue: Migration = {
  name: '20261123_006_embedding_queue',
  up: [
    // A failed attempt waits for its backoff before it can be claimed again.
    `ALTER TABLE memories ADD COLUMN embedding_retry_at timestamptz`,
    // Attempts only grow (each claim's count fences its result); a retry moves the base instead,
    // so the attempts left are EMBEDDING_MAX_ATTEMPTS - (embedding_attempts - embedding_attempts_base).
    `ALTER TABLE memories ADD COLUMN embedding_attempts_base integer NOT NULL DEFAULT 0`,
    // A v2 create that asked for dedup and matched an existing memory once embedded.
    `ALTER TABLE memories ADD COLUMN duplicate_of uuid`,
    // The claim queries read each status in its own order, from an index that holds only the
    // rows still waiting (both stay small whatever the table's size).
    `DROP INDEX memories_embedding_pending_idx`,
    `CREATE INDEX memories_embedding_pending_idx ON memories (updated_at)
       WHERE embedding_status = 'pending' AND deleted_at IS NULL`,
    `CREATE INDEX memories_embedding_processing_idx ON memories (embedding_started_at)
       WHERE embedding_status = 'processing' AND deleted_at IS NULL`,
    // One row per embedded batch, kept for minutes: the measured rate behind v2 completion estimates
    // and worker metrics. Operational, not tenant data: no account_id.
    `CREATE TABLE embedding_batches (
       id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       worker text NOT NULL,
       memories integer NOT NULL,
       duration_ms integer NOT NULL,
       finished_at timestamptz NOT NULL DEFAULT now()
     )`,
    `CREATE INDEX embedding_batches_finished_idx ON embedding_batches (finished_at)`,
  ],
};
