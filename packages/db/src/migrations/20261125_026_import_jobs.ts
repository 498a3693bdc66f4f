import type { Migration } from './migration';

export const importJobs: Migration = {
  name: '20261125_026_import_jobs',
  up: [
    // One NDJSON import run as a job. Its counters are written in the same transaction as each batch
    // of records, so whatever it says was stored is exactly what is stored, whenever the process stops.
    `CREATE TABLE import_jobs (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       id uuid NOT NULL DEFAULT gen_random_uuid(),
       status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed')),
       on_conflict text NOT NULL CHECK (on_conflict IN ('skip', 'overwrite')),
       lines integer NOT NULL DEFAULT 0,
       records_read integer NOT NULL DEFAULT 0,
       records_stored integer NOT NULL DEFAULT 0,
       records_skipped integer NOT NULL DEFAULT 0,
       records_failed integer NOT NULL DEFAULT 0,
       reembedded integer NOT NULL DEFAULT 0,
       counts jsonb NOT NULL DEFAULT '{}',
       error_count integer NOT NULL DEFAULT 0,
       errors jsonb NOT NULL DEFAULT '[]',
       failure text,
       heartbeat_at timestamptz NOT NULL DEFAULT now(),
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now(),
       finished_at timestamptz,
       PRIMARY KEY (account_id, id)
     )`,
    `CREATE INDEX import_jobs_created_idx ON import_jobs (account_id, created_at DESC)`,
  ],
};
