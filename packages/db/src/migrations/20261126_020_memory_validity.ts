import type { Migration } from './migration';

/**
 * Time-aware recall (docs/api.md, "Time-aware recall"): when a memory became true and stopped being
 * true, and the supersede links between an old memory and the one that replaced it. NULL is open:
 * true since it was recorded, and still true. Nullable columns added without a default rewrite no rows.
 */
export const memoryValidity: Migration = {
  name: '20261126_020_memory_validity',
  up: [
    `ALTER TABLE memories
       ADD COLUMN valid_from timestamptz,
       ADD COLUMN valid_until timestamptz,
       ADD COLUMN supersedes uuid,
       ADD COLUMN superseded_by uuid`,
    `ALTER TABLE memories ADD CONSTRAINT memories_validity_order CHECK (valid_until IS NULL OR valid_from IS NULL OR valid_from < valid_until)`,
  ],
};
