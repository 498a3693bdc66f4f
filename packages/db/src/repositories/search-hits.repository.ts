import type { Knex } from 'knex';
import type { BoundVector } from '../vector-column';
import type { CommonWords } from '../common-words';
import { namesStatements, prepared } from '../prepared-statements';
import { bm25Ranked } from '../keyword-ranking';
import { onOneConnection, runStatement, type RunStatement } from '../hot-statement';
import { byScore, indexTopKText, nearestNeighbours } from '../nearest';
import { keywordSet, MEMORY_COLUMNS, MemoryRow, SearchFilters, searchableWhere, semanticSet } from './memories.repository';

export interface EntityLinkRef {
  type: string;
  value: string;
  confidence: number;
}

export type HydratedHit = MemoryRow & { score: number; entities: EntityLinkRef[] };

type Row = MemoryRow & { score: unknown; entities: unknown };

/**
 * A hit's columns: the memory, the score of `h`, its linked live entities (best first). Binds the
 * account first: named as a value, not only through memories.account_id, the subquery lets Citus
 * see the whole statement is on one shard (docs/scaling.md).
 */
const HIT_COLUMNS = `${MEMORY_COLUMNS.join(', ')}, h.score,
  (SELECT coalesce(json_agg(json_build_object('type', e.entity_type, 'value', e.name, 'confidence', l.relevance_score)
                            ORDER BY l.relevance_score DESC, e.name), '[]'::json)
     FROM entity_memory_links l JOIN entities e ON e.account_id = l.account_id AND e.id = l.entity_id
    WHERE l.account_id = ?::uuid AND l.account_id = memories.account_id AND l.memory_id = memories.id AND e.deleted_at IS NULL) AS entities`;

/** The rows as hits, converted in place (fresh objects from the driver: no copy of their 33 members each). */
const present = (rows: Row[]): HydratedHit[] => {
  for (const r of rows) {
    r.score = Number(r.score);
    if (typeof r.entities === 'string') r.entities = JSON.parse(r.entities);
  }
  return rows as HydratedHit[];
};

/** The rows of a ranking in its order (hydrate's statement): its plan does not hang on the values bound, so it is prepared. */
const HYDRATE = `SELECT ${HIT_COLUMNS}
   FROM unnest(?::uuid[], ?::float8[]) WITH ORDINALITY AS h(id, score, ord)
   JOIN memories ON memories.account_id = ?::uuid AND memories.id = h.id AND memories.deleted_at IS NULL
  ORDER BY h.ord`;

const hydrateOn = async (run: RunStatement, accountId: string, hits: Array<{ id: string; score: number }>): Promise<HydratedHit[]> =>
  present(await run<Row>(HYDRATE, [accountId, hits.map((h) => h.id), hits.map((h) => h.score), accountId], { prepare: true }));

export const searchHitsRepository = {
  /**
   * The live memories of a ranking (`hits`, best first) in its order, each with its score and its
   * linked live entities; a memory deleted since it was ranked is left out. One statement, a pure
   * read; prepared (its plan does not hang on the ids given).
   */
  async hydrate(db: Knex, accountId: string, hits: Array<{ id: string; score: number }>): Promise<HydratedHit[]> {
    if (hits.length === 0) return [];
    return onOneConnection(db, (run) => hydrateOn(run, accountId, hits));
  },

  /**
   * The k memories of `f` nearest to `vector` (semanticCandidates' ranking), as hydrate gives them.
   * When the HNSW index answers alone: where the database names its statements, the index's top-k
   * (unnamed: a generic plan would not know the filters' selectivity), then hydrate's statement
   * (named) on the same connection; elsewhere one statement reads both (PGlite names none, and one
   * statement is one pass through its single connection). The top-k's text alone costs PostgreSQL
   * less to parse and plan than the rows' columns and entities with it (decision 0013, npm run
   * bench:statements). Otherwise (k too deep for one statement, or fewer than k rows from the index:
   * a small or heavily filtered set) the exact scan ranks, then hydrate reads.
   */
  async nearest(db: Knex, f: SearchFilters, vector: BoundVector, k: number): Promise<HydratedHit[]> {
    const topK = indexTopKText('memories', searchableWhere(f, f.embeddingModel), vector, k);
    if (topK && namesStatements(db)) {
      const hits = await onOneConnection(db, async (run) => {
        const ranked = byScore(await run<{ id: string; score: unknown }>(...topK));
        return ranked.length >= k ? hydrateOn(run, f.accountId, ranked) : undefined;
      });
      if (hits) return hits;
    } else if (topK) {
      const [sql, bindings] = topK;
      const rows = await runStatement<Row>(
        db,
        `SELECT ${HIT_COLUMNS} FROM (${sql}) AS h JOIN memories ON memories.account_id = ?::uuid AND memories.id = h.id ORDER BY h.score DESC, h.id`,
        [f.accountId, ...bindings, f.accountId],
      );
      if (rows.length >= k) return present(rows);
    }
    return this.hydrate(db, f.accountId, await nearestNeighbours(db, 'memories', semanticSet(f), vector, k));
  },

  /**
   * The k memories of `f` best matching `text` (keywordCandidates' ranking), as hydrate gives them:
   * the ranking statement reads the rows too (prepared, as the ranking alone is), so a keyword
   * search is its words' count and this, two statements (on Citus, two router hops instead of three).
   */
  async keyword(db: Knex, commonWords: CommonWords, f: SearchFilters, text: string, k: number): Promise<HydratedHit[]> {
    return bm25Ranked(db, commonWords, keywordSet(f), text, k, async (ranked) => {
      const { rows } = await prepared(
      db,
        db.raw(`SELECT ${HIT_COLUMNS} FROM (?) AS h JOIN memories ON memories.account_id = ?::uuid AND memories.id = h.id`, [f.accountId, ranked, f.accountId]),
      );
      return present(rows as Row[]);
    });
  },
};
