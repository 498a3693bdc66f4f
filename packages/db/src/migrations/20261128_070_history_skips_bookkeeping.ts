import type { Migration } from './migration';
import { UNTRACKED_MEMORY_COLUMNS } from './20261126_010_memory_history';

/**
 * A memory's version records what the memory is, not the service's bookkeeping: a re-embed run's
 * next vector (`embedding_next`, `embedding_next_model`) and an embedding retry's time make no
 * versions of their own, so a re-embed run's swap is recorded as `re-embed` (only the vector
 * and its model changed), not `update`.
 */
const untracked = [...UNTRACKED_MEMORY_COLUMNS, 'embedding_next', 'embedding_next_model', 'embedding_retry_at'];

export const historySkipsBookkeeping: Migration = {
  name: '20261128_070_history_skips_bookkeeping',
  up: [
    `CREATE OR REPLACE FUNCTION memory_tracked_state_of(m record) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
     BEGIN
       m.embedding := NULL;
       m.content_tsv := NULL;
       RETURN to_jsonb(m) - ARRAY[${untracked.map((c) => `'${c}'`).join(', ')}]::text[];
     END $$`,
  ],
};
