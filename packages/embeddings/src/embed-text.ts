import type { Embedder } from './embedder';
import { toPgVector } from './vector';

/** One text through the embedder, as the pgvector literal the repositories store. */
export async function embedText(embedder: Embedder, text: string): Promise<string> {
  const [vector] = await embedder.embed([text]);
  return toPgVector(vector!);
}
