/**
 * A vector bound as a statement parameter: pgvector's text literal (`[0.1,0.2,...]`), or an object
 * that says its size and binds itself (VectorParam of @ams/embeddings: binary on PostgreSQL, the
 * literal on PGlite).
 */
export type BoundVector = string | { readonly dimensions: number };

/** The number of components of a bound vector. */
export function dimensionsOf(vector: BoundVector): number {
  if (typeof vector !== 'string') return vector.dimensions;
  let commas = 0;
  for (let i = 0; i < vector.length; i++) if (vector.charCodeAt(i) === 44) commas++;
  return commas + 1;
}

/**
 * How a search reaches `<table>.embedding` (a dimensionless column) for a query vector of `dims`
 * components: the expression and predicate of that size's partial HNSW index
 * (`<table>_vector_<dims>_*_idx`, migration 020), spelled exactly as the index is, so the planner
 * uses it. Rows of another size never reach the cast. `dims` is a number we computed, never input.
 */
export function vectorMatch(table: string, dims: number): { expr: string; where: string } {
  if (!Number.isInteger(dims) || dims < 1 || dims > 16_000) throw new Error(`not a vector size: ${dims}`);
  return { expr: `(${table}.embedding::vector(${dims}))`, where: `vector_dims(${table}.embedding) = ${dims}` };
}

/**
 * How a re-embed run builds its staging HNSW index: as migration 025 rebuilt every other (12
 * links a node, pgvector's default ef_construction). See that migration for the figures.
 */
export const HNSW_BUILD_OPTIONS = 'WITH (m = 12, ef_construction = 64)';
