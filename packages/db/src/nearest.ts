import type { Knex } from 'knex';

export interface Neighbour {
  id: string;
  /** Cosine similarity, 1 - cosine distance. */
  score: number;
}

const byScore = (rows: Array<{ id: string; score: number | string }>): Neighbour[] =>
  rows.map((r) => ({ id: r.id, score: Number(r.score) })).sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));

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
  vector: string,
  k: number,
): Promise<Neighbour[]> {
  const distance = `${table}.embedding <=> ?::vector`;
  const viaIndex: Array<{ id: string; score: number }> = await db.transaction(async (trx) => {
    await trx.raw('SET LOCAL hnsw.iterative_scan = relaxed_order');
    await trx.raw(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(40, k * 2))}`);
    return filtered(trx)
      .select(`${table}.id`, trx.raw(`1 - (${distance}) AS score`, [vector]))
      .orderByRaw(distance, [vector])
      .limit(k);
  });
  if (viaIndex.length >= k) return byScore(viaIndex);
  // MATERIALIZED keeps the planner from turning this back into an index-ordered scan.
  const exact: Array<{ id: string; score: number }> = await db
    .withMaterialized('candidates', filtered(db).select(`${table}.id`, `${table}.embedding`))
    .from('candidates')
    .select('id', db.raw('1 - (embedding <=> ?::vector) AS score', [vector]))
    .orderByRaw('embedding <=> ?::vector', [vector])
    .limit(k);
  return byScore(exact);
}
