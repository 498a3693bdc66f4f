import type { Migration } from './migration';

export const projectsAndSessions: Migration = {
  name: '20261122_002_projects_sessions',
  up: [
    `CREATE TABLE projects (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       id uuid NOT NULL DEFAULT gen_random_uuid(),
       slug text NOT NULL CHECK (slug ~ '^[a-z0-9-]{1,100}$'),
       name text NOT NULL,
       description text,
       stack jsonb NOT NULL DEFAULT '{}',
       repo_url text,
       metadata jsonb NOT NULL DEFAULT '{}',
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now(),
       deleted_at timestamptz,
       PRIMARY KEY (account_id, id)
     )`,
    // A deleted project's slug can be reused.
    `CREATE UNIQUE INDEX projects_account_slug_key ON projects (account_id, slug) WHERE deleted_at IS NULL`,
    `CREATE INDEX projects_account_created_idx ON projects (account_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
    `CREATE TABLE sessions (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       id uuid NOT NULL DEFAULT gen_random_uuid(),
       agent_id uuid,
       external_id text,
       project text,
       status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
       title text,
       summary text,
       summary_generated_at timestamptz,
       metadata jsonb NOT NULL DEFAULT '{}',
       started_at timestamptz NOT NULL DEFAULT now(),
       ended_at timestamptz,
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now(),
       deleted_at timestamptz,
       PRIMARY KEY (account_id, id),
       FOREIGN KEY (account_id, agent_id) REFERENCES agents (account_id, id)
     )`,
    `CREATE UNIQUE INDEX sessions_account_external_id_key ON sessions (account_id, external_id)
       WHERE deleted_at IS NULL AND external_id IS NOT NULL`,
    `CREATE INDEX sessions_account_created_idx ON sessions (account_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
  ],
};
