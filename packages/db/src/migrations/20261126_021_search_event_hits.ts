import type { Migration } from './migration';

/**
 * What each search (and context build) returned, in its order: the recall history re-tiering reads.
 * Written by the same INSERT as the rest of the search's record. The index serves re-tiering's
 * fold of the events since its watermark, per account.
 */
export const searchEventHits: Migration = {
  name: '20261126_021_search_event_hits',
  up: [
    `ALTER TABLE search_events ADD COLUMN memory_ids uuid[]`,
    `CREATE INDEX search_events_account_created_idx ON search_events (account_id, created_at) WHERE memory_ids IS NOT NULL`,
  ],
};
