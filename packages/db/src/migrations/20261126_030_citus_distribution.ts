import type { Migration } from './migration';
import { COLOCATION_ANCHOR, onCitus } from '../citus';

/**
 * On a Citus coordinator (docs/scaling.md), the schema is spread over the workers; elsewhere this
 * migration does nothing. Every primary key, unique index and foreign key of a tenant table already
 * leads with account_id (001-028), which Citus requires of a distributed table's constraints; what
 * had to change:
 * - accounts and api_keys become reference tables (authentication finds a key by its hash, across
 *   accounts, and every tenant table references accounts). A reference table cannot reference a
 *   distributed one, so api_keys loses its foreign key to agents on Citus: the key service checks
 *   the agent exists when it creates a key, and agents are only ever soft-deleted.
 * - Every other table with an account_id column is distributed by it, co-located with agents (so
 *   joins and foreign keys between tenant tables stay on one shard), parents before children.
 *   Tables other migrations added before this one are found by their account_id column too.
 * - embedding_state, reembed_runs and embedding_batches (service-wide, no account) stay plain
 *   tables on the coordinator.
 * A new tenant table is distributed in its own migration (docs/scaling.md).
 */
export const citusDistribution: Migration = {
  name: '20261126_030_citus_distribution',
  up: [
    onCitus(`
    DECLARE
      t record;
      fks text[];
    BEGIN
      -- The vector tables' row triggers (020) only rewrite the row they fire for: safe on a shard.
      PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
      ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_account_id_agent_id_fkey;
      -- Citus turns a table referencing a reference table into a "Citus local" table, and refuses
      -- to distribute a table a local one references: the foreign keys of the tenant tables go
      -- first, and come back once every table is in place.
      SELECT coalesce(array_agg(format('ALTER TABLE %s ADD CONSTRAINT %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
                                ORDER BY conrelid::regclass::text, conname), '{}')
        INTO fks
        FROM pg_constraint
       WHERE contype = 'f' AND connamespace = current_schema()::regnamespace
         AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = conrelid);
      FOR t IN SELECT conrelid::regclass AS rel, conname FROM pg_constraint
                WHERE contype = 'f' AND connamespace = current_schema()::regnamespace
                  AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = conrelid)
      LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', t.rel, t.conname);
      END LOOP;
      FOR t IN SELECT unnest(ARRAY['accounts', 'api_keys'])::regclass AS rel LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = t.rel) THEN
          PERFORM create_reference_table(t.rel);
        END IF;
      END LOOP;
      IF NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = '${COLOCATION_ANCHOR}'::regclass) THEN
        PERFORM create_distributed_table('${COLOCATION_ANCHOR}', 'account_id', colocate_with => 'default');
      END IF;
      FOR t IN
        SELECT c.oid::regclass AS rel
          FROM pg_class c
          JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'account_id' AND NOT a.attisdropped
         WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
           AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = c.oid)
         ORDER BY c.relname
      LOOP
        PERFORM create_distributed_table(t.rel, 'account_id', colocate_with => '${COLOCATION_ANCHOR}');
      END LOOP;
      FOR i IN 1 .. coalesce(array_length(fks, 1), 0) LOOP
        EXECUTE fks[i];
      END LOOP;
    END;`),
  ],
};
