import type { Migration } from './migration';

export const webhooksAndSearchEvents: Migration = {
  name: '20261122_005_webhooks_search_events',
  up: [
    `CREATE TABLE webhooks (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       id uuid NOT NULL DEFAULT gen_random_uuid(),
       url text NOT NULL,
       event_types text[] NOT NULL DEFAULT '{}',
       enabled boolean NOT NULL DEFAULT true,
       disabled_reason text,
       description text,
       secret text,
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (account_id, id)
     )`,
    `CREATE INDEX webhooks_account_enabled_idx ON webhooks (account_id) WHERE enabled`,
    // The transactional outbox: one row per (event, receiver), written with the change that caused it.
    `CREATE TABLE webhook_deliveries (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       id uuid NOT NULL DEFAULT gen_random_uuid(),
       webhook_id uuid,
       target_url text,
       event_id uuid NOT NULL,
       event_type text NOT NULL,
       payload jsonb NOT NULL,
       status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed')),
       attempts integer NOT NULL DEFAULT 0,
       next_attempt_at timestamptz NOT NULL DEFAULT now(),
       locked_until timestamptz,
       last_attempt_at timestamptz,
       last_status_code integer,
       last_error text,
       response_excerpt text,
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (account_id, id),
       FOREIGN KEY (account_id, webhook_id) REFERENCES webhooks (account_id, id) ON DELETE CASCADE,
       -- A one-shot v2 notification has a target_url and no webhook.
       CHECK ((webhook_id IS NULL) <> (target_url IS NULL))
     )`,
    `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at)
       WHERE status IN ('pending', 'delivering')`,
    `CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (account_id, webhook_id, created_at DESC)`,
    `CREATE TABLE search_events (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       id uuid NOT NULL DEFAULT gen_random_uuid(),
       agent_id uuid,
       query text NOT NULL,
       search_mode text NOT NULL,
       result_count integer NOT NULL,
       avg_score real,
       response_ms real NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (account_id, id)
     )`,
    `CREATE INDEX search_events_account_agent_idx ON search_events (account_id, agent_id, created_at DESC)`,
  ],
};
