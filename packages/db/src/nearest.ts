import type { Knex } from 'knex';
import { dimensionsOf, vectorMatch, type BoundVector } from './vector-column';

export interface Neighbour {
  id: string;
  /** Cosine similarity, 1 - cosine distance. */
  score: number;
}

/** Best first; ties by id, so equal scores keep a stable order. Each row keeps its other columns. */
export const byScore = <R extends { id: string; score: unknown }>(rows: R[]): Array<R & Neighbour> =>
  rows.map((r) => ({ ...r, score: Number(r.score) })).sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));

/**
 * Candidates HNSW keeps while searching. Recall@10 against an exact scan (npm run bench): 0.97 at
 * 40 and ≥ 0.98 from 100 on the 10k real-text store; at 100k (300 queries) 0.976 at 100, 0.983 at
 * 120, 0.987 at 150, 0.992 at 200, for p50 3.0, 3.3, 3.8 and 5.2 ms. With the index's 12 links a
 * node (migration 025): 0.987 at 150 and 0.991 at 200, for p50 2.6 and 3.1 ms.
 */
const efSearch = (k: number) => Math.min(1000, Math.max(EF_SEARCH_MIN, k * 2));
const EF_SEARCH_MIN = 150;

/**
 * What every connection starts with (createDatabase): iterative scans (a filtered HNSW scan goes on
 * until k rows pass) and EF_SEARCH_MIN. A top-k of up to EF_SEARCH_MIN / 2 rows is then one
 * statement on any connection; only a deeper one pays a transaction to raise ef_search.
 */
export const HNSW_SESSION_SETTINGS = `SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = ${EF_SEARCH_MIN}`;

/** The index-ordered top-k query, on a connection whose HNSW settings suit k. */
async function inIterativeScan<T>(db: Knex, k: number, run: (db: Knex) => Promise<T>): Promise<T> {
  if (efSearch(k) === EF_SEARCH_MIN) return run(db);
  return db.transaction(async (trx) => {
    // is_local: the raised ef_search ends with the transaction.
    await trx.raw(`SELECT set_config('hnsw.ef_search', ?, true)`, [String(efSearch(k))]);
    return run(trx);
  });
}

/** `filtered` narrowed to the rows holding a vector of the query's size (see vectorMatch). */
const ofQuerySize = (table: string, filtered: (db: Knex) => Knex.QueryBuilder, vector: BoundVector) => {
  const match = vectorMatch(table, dimensionsOf(vector));
  return { expr: match.expr, rows: (db: Knex) => filtered(db).whereRaw(match.where) };
};

/**
 * Ordered by the selected distance, which the planner matches to the index's expression: the
 * vector is bound and parsed once, not once for the score and again for the order.
 */
const nearestFirst = (db: Knex, rows: Knex.QueryBuilder, id: string, expr: string, vector: BoundVector, k: number) =>
  db
    .select('id', db.raw('1 - distance AS score'))
    .from(rows.select(id, db.raw(`${expr} <=> ?::vector AS distance`, [vector])).orderBy('distance').limit(k).as('nearest'));

const indexOrdered = (db: Knex, table: string, filtered: (db: Knex) => Knex.QueryBuilder, vector: BoundVector, k: number) => {
  const { expr, rows } = ofQuerySize(table, filtered, vector);
  return nearestFirst(db, rows(db), `${table}.id`, expr, vector, k);
};

/**
 * The k rows of `filtered` (always account-scoped, holding `<table>.id` and `<table>.embedding`)
 * nearest to `vector` by cosine distance.
 *
 * The HNSW index on `<table>.embedding` answers first. A filtered HNSW scan only sees ef_search
 * candidates from the whole table (every tenant's rows), so iterative scans keep it going until k
 * rows pass the filters; relaxed order is re-sorted here. When the index still yields fewer than k
 * (a small or heavily filtered set), an exact scan over the filtered rows answers instead.
 */
export async function nearestNeighbours(
  db: Knex,
  table: string,
  filtered: (db: Knex) => Knex.QueryBuilder,
  vector: BoundVector,
  k: number,
): Promise<Neighbour[]> {
  const viaIndex: Array<{ id: string; score: number }> = await inIterativeScan(db, k, (trx) => indexOrdered(trx, table, filtered, vector, k));
  if (viaIndex.length >= k) return byScore(viaIndex);
  // MATERIALIZED keeps the planner from turning this back into an index-ordered scan.
  const { expr, rows } = ofQuerySize(table, filtered, vector);
  const exact: Array<{ id: string; score: number }> = await nearestFirst(db, db.from('candidates'), 'id', 'embedding', vector, k).withMaterialized(
    'candidates',
    rows(db).select(`${table}.id`, db.raw(`${expr} AS embedding`)),
  );
  return byScore(exact);
}

/**
 * The index-ordered top-k (id, score; relaxed order) of the rows of `<table>` matching `where`
 * (`?` bindings), as text and its bindings, for a statement that reads more in the same query, on
 * any connection; null when k is too deep for the session's ef_search. Text, not a query builder:
 * a semantic search's one statement is assembled from it (searchHitsRepository.nearest). Fewer than
 * k rows from it means the index cannot answer alone: ask nearestNeighbours.
 */
export function indexTopKText(table: string, where: { sql: string; bindings: unknown[] }, vector: BoundVector, k: number): [string, unknown[]] | null {
  if (efSearch(k) !== EF_SEARCH_MIN) return null;
  const match = vectorMatch(table, dimensionsOf(vector));
  return [
    `SELECT id, 1 - distance AS score FROM (SELECT ${table}.id, ${match.expr} <=> ?::vector AS distance FROM ${table} WHERE ${where.sql} AND ${match.where} ORDER BY distance LIMIT ?) AS nearest`,
    [vector, ...where.bindings, k],
  ];
}

/** The rows of `hits` in their order, each with its score; a row gone meanwhile is left out. */
export function withScores<R extends { id: string }>(hits: Neighbour[], rows: R[]): Array<R & { score: number }> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return hits.flatMap((h) => {
    const row = byId.get(h.id);
    return row ? [{ ...row, score: h.score }] : [];
  });
}

/** The plan PostgreSQL picks for the index-ordered query (operators check the HNSW index is used). */
export async function explainNearest(db: Knex, table: string, filtered: (db: Knex) => Knex.QueryBuilder, vector: BoundVector, k: number): Promise<string> {
  return inIterativeScan(db, k, async (trx) => {
    const { sql, bindings } = indexOrdered(trx, table, filtered, vector, k).toSQL();
    const { rows } = await trx.raw(`EXPLAIN ${sql}`, bindings);
    return (rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n');
  });
}
