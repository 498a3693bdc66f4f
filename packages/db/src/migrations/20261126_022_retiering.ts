import type { Migration } from './migration';

/**
 * Re-tiering by use and age (docs/api.md, "Re-tiering"): each account's rules (off until an admin
 * turns them on), its recall statistics folded from search_events, and the moves the job made.
 */
export const retiering: Migration = {
  name: '20261126_022_retiering',
  up: [
    `CREATE TABLE account_retiering (
       account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
       enabled boolean NOT NULL DEFAULT false,
       promote_recalls integer NOT NULL DEFAULT 3 CHECK (promote_recalls >= 1),
       promote_window_days integer NOT NULL DEFAULT 7 CHECK (promote_window_days >= 1),
       demote_after_days integer NOT NULL DEFAULT 30 CHECK (demote_after_days >= 1),
       -- search_events up to here are folded into memory_recalls.
       recalls_folded_until timestamptz,
       last_run_at timestamptz,
       last_run_moved integer,
       updated_at timestamptz NOT NULL DEFAULT now()
     )`,
    // recent_recalls: recalls within the promote window, decayed by its half (see retiering rules).
    `CREATE TABLE memory_recalls (
       account_id uuid NOT NULL,
       memory_id uuid NOT NULL,
       last_recalled_at timestamptz NOT NULL,
       recall_count integer NOT NULL,
       recent_recalls real NOT NULL,
       PRIMARY KEY (account_id, memory_id),
       FOREIGN KEY (account_id, memory_id) REFERENCES memories (account_id, id) ON DELETE CASCADE
     )`,
    `CREATE TABLE tier_moves (
       account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
       id uuid NOT NULL DEFAULT gen_random_uuid(),
       memory_id uuid NOT NULL,
       from_tier text NOT NULL,
       to_tier text NOT NULL,
       reason text NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (account_id, id),
       FOREIGN KEY (account_id, memory_id) REFERENCES memories (account_id, id) ON DELETE CASCADE
     )`,
    // When re-tiering last moved the memory: a demoted memory waits a whole disuse period again.
    `ALTER TABLE memories ADD COLUMN tier_moved_at timestamptz`,
    `CREATE INDEX tier_moves_account_moved_idx ON tier_moves (account_id, created_at DESC, id DESC)`,
  ],
};
