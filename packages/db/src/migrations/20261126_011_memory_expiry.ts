import type { Migration } from './migration';

/**
 * Memories that expire: reads leave out a memory whose expires_at has passed at once
 * (excludeExpired), and the expiry sweep soft-deletes it later. The partial index is the sweep's
 * scan: only live memories that expire at all.
 */
export const memoryExpiry: Migration = {
  name: '20261126_011_memory_expiry',
  up: [
    `ALTER TABLE memories ADD COLUMN expires_at timestamptz`,
    `CREATE INDEX memories_expires_at_idx ON memories (expires_at) WHERE expires_at IS NOT NULL AND deleted_at IS NULL`,
  ],
};
