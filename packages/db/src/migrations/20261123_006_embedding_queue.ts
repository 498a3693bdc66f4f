import type { Migration } from './migration';

export const embeddingQueue: Migration = {
  name: '20261123_006_embedding_queue',
  up: [
    // A failed attempt waits for its backoff before it can be claimed again.
    `ALTER TABLE memories ADD COLUMN embedding_retry_at timestamptz`,
    // A v2 create that asked for dedup and matched an existing memory once embedded.
    `ALTER TABLE memories ADD COLUMN duplicate_of uuid`,
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
