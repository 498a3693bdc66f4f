import { Candidate, Db, HydratedHit, memoriesRepository, SearchEvent, SearchFilters, searchEventsRepository } from '@ams/db';
import { Embedder, embedQuery, SwitchableEmbedder, toPgVector } from '@ams/embeddings';

/** Whether the embedder's model moved on from `used` (here, or in the store: re-read then). */
async function modelMovedOn(embedder: Embedder, used: string): Promise<boolean> {
  if (embedder.model !== used) return true;
  return embedder instanceof SwitchableEmbedder ? embedder.refresh() : false;
}

/**
 * The semantic leg: the query's vector and the k memories nearest to it among the vectors of the
 * model that made it (read when the vector is made, so a re-embed's switch in between cannot pair
 * one model's query with another's rows). Nothing found right after a switch (made here or by
 * another process) is asked once more with the new model.
 */
export async function semanticLeg(db: Db, embedder: Embedder, f: SearchFilters, query: string, k: number): Promise<{ hits: Candidate[]; queryVector: Float32Array }> {
  for (let retried = false; ; retried = true) {
    const queryVector = await embedQuery(embedder, query);
    const model = embedder.model;
    const hits = await memoriesRepository.semanticCandidates(db, { ...f, embeddingModel: model }, toPgVector(queryVector), k);
    if (hits.length > 0 || retried || !(await modelMovedOn(embedder, model))) return { hits, queryVector };
  }
}

/**
 * A whole semantic search in one statement after the embed (ranking, rows, the search recorded;
 * see recordNearest), when the index can answer it alone: null when it cannot (k too deep, or
 * fewer than k rows from the index), and the caller takes the general path.
 */
export async function semanticSearchInOneStatement(
  db: Db,
  embedder: Embedder,
  f: SearchFilters,
  query: string,
  k: number,
  minScore: number,
  event: () => SearchEvent,
): Promise<{ hits: HydratedHit[]; evaluated: number; queryVector: Float32Array } | null> {
  const queryVector = await embedQuery(embedder, query);
  const nearest = memoriesRepository.semanticTopKQuery(db, { ...f, embeddingModel: embedder.model }, toPgVector(queryVector), k);
  const found = nearest && (await searchEventsRepository.recordNearest(db, event(), nearest, k, minScore));
  return found ? { ...found, queryVector } : null;
}
