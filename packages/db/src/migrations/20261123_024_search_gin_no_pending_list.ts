import type { Migration } from './migration';

/**
 * The GIN indexes searches read (full text; metadata filters) take inserts straight into the
 * index instead of a pending list. With fastupdate on, every insert lands in a list that each
 * search must scan in full until a vacuum merges it: after a bulk load of 10k memories a keyword
 * search's index scans took ~3 ms per query word instead of ~0.03 ms (npm run bench). Inserts
 * pay a little more, next to the embedding they already wait for. The list left now is merged.
 */
export const searchGinNoPendingList: Migration = {
  name: '20261123_024_search_gin_no_pending_list',
  up: [
    `ALTER INDEX memories_content_tsv_idx SET (fastupdate = off)`,
    `ALTER INDEX memories_metadata_idx SET (fastupdate = off)`,
    `SELECT gin_clean_pending_list('memories_content_tsv_idx'::regclass)`,
    `SELECT gin_clean_pending_list('memories_metadata_idx'::regclass)`,
  ],
};
