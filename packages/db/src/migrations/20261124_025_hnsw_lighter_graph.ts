import type { Migration } from './migration';

/**
 * The HNSW indexes are rebuilt with 12 links a node instead of pgvector's default 16 (the same
 * ef_construction, 64). On the bench's 100k real-text store, builds compared side by side (README, "Fifth session of 2026-11-24"):
 * the INSERT of a row with its vector 5.9 → 3.4 ms, the index's top-10 at ef_search 150
 * 4.7 → 2.6 ms, recall@10 against an exact scan 0.989 → 0.987. A v1 create waits on that INSERT.
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
