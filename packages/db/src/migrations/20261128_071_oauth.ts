import type { Migration } from './migration';
import { onCitus } from '../citus';

/**
 * The built-in OAuth authorization server (remote MCP hosts): the clients that registered
 * themselves, the authorization requests waiting on a person's sign-in and consent, the grants that
 * consent made, their one-use codes and their tokens (only hashes of codes and tokens are kept),
 * and the sign-in attempts counted against each account and each address.
 *
 * Clients and attempts belong to no account. Codes and tokens are found by their hash, across
 * accounts, as API keys are: on Citus these tables are reference tables, like api_keys.
 */
export const oauth: Migration = {
  name: '20261128_071_oauth',
  up: [
    `CREATE TABLE oauth_clients (
       id text PRIMARY KEY,
       secret_hash text,
       secret_expires_at timestamptz,
       metadata jsonb NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now()
     )`,
    `CREATE TABLE oauth_requests (
       id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
       client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
       redirect_uri text NOT NULL,
       code_challenge text NOT NULL,
       scopes text[] NOT NULL,
       state text,
       resource text NOT NULL,
       browser_hash text NOT NULL,
       csrf_token text NOT NULL,
       account_id uuid REFERENCES accounts (id) ON DELETE CASCADE,
       expires_at timestamptz NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now()
     )`,
    `CREATE TABLE oauth_grants (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       id uuid NOT NULL DEFAULT gen_random_uuid(),
       client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
       scopes text[] NOT NULL,
       agent_id uuid,
       resource text NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(),
       last_used_at timestamptz,
       revoked_at timestamptz,
       revoked_reason text,
       PRIMARY KEY (account_id, id)
     )`,
    `CREATE INDEX oauth_grants_created_idx ON oauth_grants (account_id, created_at DESC)`,
    `CREATE TABLE oauth_codes (
       code_hash text PRIMARY KEY,
       account_id uuid NOT NULL,
       grant_id uuid NOT NULL,
       client_id text NOT NULL,
       redirect_uri text NOT NULL,
       code_challenge text NOT NULL,
       expires_at timestamptz NOT NULL,
       used_at timestamptz,
       FOREIGN KEY (account_id, grant_id) REFERENCES oauth_grants (account_id, id) ON DELETE CASCADE
     )`,
    `CREATE TABLE oauth_tokens (
       token_hash text PRIMARY KEY,
       kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
       account_id uuid NOT NULL,
       grant_id uuid NOT NULL,
       expires_at timestamptz NOT NULL,
       revoked_at timestamptz,
       created_at timestamptz NOT NULL DEFAULT now(),
       FOREIGN KEY (account_id, grant_id) REFERENCES oauth_grants (account_id, id) ON DELETE CASCADE
     )`,
    `CREATE INDEX oauth_tokens_grant_idx ON oauth_tokens (account_id, grant_id)`,
    `CREATE TABLE oauth_sign_in_attempts (
       subject text PRIMARY KEY,
       attempts integer NOT NULL,
       window_started_at timestamptz NOT NULL
     )`,
    onCitus(`
      PERFORM create_reference_table('oauth_clients');
      PERFORM create_reference_table('oauth_requests');
      PERFORM create_reference_table('oauth_grants');
      PERFORM create_reference_table('oauth_codes');
      PERFORM create_reference_table('oauth_tokens');`),
  ],
};
