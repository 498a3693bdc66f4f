import type { Migration } from './migration';

export const accountsAndKeys: Migration = {
  name: '20261122_001_accounts_and_keys',
  up: [
    `CREATE EXTENSION IF NOT EXISTS vector`,
    `CREATE TABLE accounts (
       id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
       email text NOT NULL,
       password_hash text,
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now()
     )`,
    `CREATE UNIQUE INDEX accounts_email_key ON accounts (lower(email))`,
    // Every tenant-owned table keys on (account_id, id) so the schema can be distributed by account.
    `CREATE TABLE agents (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       id uuid NOT NULL DEFAULT gen_random_uuid(),
       name text NOT NULL,
       description text,
       config jsonb NOT NULL DEFAULT '{}',
       metadata jsonb NOT NULL DEFAULT '{}',
       last_active_at timestamptz,
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now(),
       deleted_at timestamptz,
       PRIMARY KEY (account_id, id)
     )`,
    `CREATE UNIQUE INDEX agents_account_name_key ON agents (account_id, name) WHERE deleted_at IS NULL`,
    `CREATE INDEX agents_account_created_idx ON agents (account_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
    `CREATE TABLE api_keys (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       id uuid NOT NULL DEFAULT gen_random_uuid(),
       name text NOT NULL,
       key_hash text NOT NULL,
       key_prefix text NOT NULL,
       scopes text[] NOT NULL,
       agent_id uuid,
       expires_at timestamptz,
       revoked_at timestamptz,
       last_used_at timestamptz,
       created_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (account_id, id),
       FOREIGN KEY (account_id, agent_id) REFERENCES agents (account_id, id)
     )`,
    // Authentication looks keys up by hash alone: it is the one cross-account lookup.
    `CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys (key_hash)`,
    `CREATE INDEX api_keys_account_created_idx ON api_keys (account_id, created_at DESC, id DESC)`,
  ],
};
