import type { Embedder } from './embedder';
import { toPgVector, VectorParam } from './vector';

/** One text through the embedder, as the pgvector literal the repositories store. */
export async function embedText(embedder: Embedder, text: string): Promise<string> {
  const [vector] = await embedder.embed([text]);
  return toPgVector(vector!);
}

/** One text through the embedder, as the parameter a similarity search binds (see VectorParam). */
export async function embedForSearch(embedder: Embedder, text: string): Promise<VectorParam> {
  const [vector] = await embedder.embed([text]);
  return new VectorParam(vector!);
}
