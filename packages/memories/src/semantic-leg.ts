import { Candidate, Db, memoriesRepository, SearchFilters } from '@ams/db';
import { Embedder, embedQuery, SwitchableEmbedder, VectorParam } from '@ams/embeddings';

/** Whether the embedder's model moved on from `used` (here, or in the store: re-read then). */
async function modelMovedOn(embedder: Embedder, used: string): Promise<boolean> {
  if (embedder.model !== used) return true;
  return embedder instanceof SwitchableEmbedder ? embedder.refresh() : false;
}

/**
 * The query's vector and what `find` finds nearest to it among the vectors of the model that made
 * it (read when the vector is made, so a re-embed's switch in between cannot pair one model's query
 * with another's rows). Nothing found right after a switch (made here or by another process) is
 * asked once more with the new model.
 */
export async function nearestToQuery<T>(
  embedder: Embedder,
  f: SearchFilters,
  query: string,
  find: (f: SearchFilters, vector: VectorParam) => Promise<T[]>,
): Promise<{ hits: T[]; queryVector: Float32Array }> {
  for (let retried = false; ; retried = true) {
    const { queryVector, model } = await queryVectorOf(embedder, query);
    const hits = await find({ ...f, embeddingModel: model }, new VectorParam(queryVector));
    if (hits.length > 0 || retried || !(await modelMovedOn(embedder, model))) return { hits, queryVector };
  }
}

/** The semantic leg of a hybrid search: the k nearest memories' ids and scores (see nearestToQuery). */
export function semanticLeg(db: Db, embedder: Embedder, f: SearchFilters, query: string, k: number): Promise<{ hits: Candidate[]; queryVector: Float32Array }> {
  return nearestToQuery(embedder, f, query, (g, vector) => memoriesRepository.semanticCandidates(db, g, vector, k));
}

/** A query's vector and the model that made it. */
interface QueryVector {
  queryVector: Float32Array;
  model: string;
}

/** The model is read as the vector is made, so a re-embed's switch in between cannot mislabel it. */
async function queryVectorOf(embedder: Embedder, query: string): Promise<QueryVector> {
  const queryVector = await embedQuery(embedder, query);
  return { queryVector, model: embedder.model };
}
