import type { Migration } from './migration';

/**
 * The HNSW indexes are rebuilt with 12 links a node instead of pgvector's default 16 (the same
 * ef_construction, 64): a lighter graph makes each insert and each top-k cheaper for a recall that
 * barely moves, and a v1 create waits on its row's insert (docs/decisions/0009-hnsw-12-links.md).
 *
 * Every HNSW index of the vector tables is rebuilt under its own name (a re-embed run's staging
 * index too): the new one is built beside the old, then takes its place. Searches read on while
 * it builds; writes to the table wait (about 25 s per 100k rows on 2 cores).
 */
/** Spelled out, not imported from vector-column.ts: a landed migration means what it meant, whatever the build options become. */
const OPTIONS = 'WITH (m = 12, ef_construction = 64)';

export const hnswLighterGraph: Migration = {
  name: '20261124_025_hnsw_lighter_graph',
  up: [
    `DO $$
     DECLARE
       r record;
     BEGIN
       FOR r IN
         SELECT ic.relname AS name, pg_get_indexdef(i.indexrelid) AS def
           FROM pg_index i
           JOIN pg_class ic ON ic.oid = i.indexrelid
           JOIN pg_am am ON am.oid = ic.relam
           JOIN pg_class t ON t.oid = i.indrelid
          WHERE am.amname = 'hnsw' AND t.relnamespace = current_schema()::regnamespace
            AND t.relname IN ('memories', 'decisions', 'patterns')
          -- A swapped index keeps its table locked until the commit: the largest goes last.
          ORDER BY pg_relation_size(t.oid), ic.relname
       LOOP
         -- Built under a new name beside the old (reads go on using it), then swapped in.
         EXECUTE regexp_replace(
           CASE WHEN position(' WHERE ' IN r.def) > 0
                THEN replace(r.def, ' WHERE ', ' ${OPTIONS} WHERE ')
                ELSE r.def || ' ${OPTIONS}' END,
           '^CREATE INDEX \\S+ ON', format('CREATE INDEX %I ON', left(r.name, 50) || '_rebuilt'));
         EXECUTE format('DROP INDEX %I', r.name);
         EXECUTE format('ALTER INDEX %I RENAME TO %I', left(r.name, 50) || '_rebuilt', r.name);
       END LOOP;
     END $$`,
  ],
};
