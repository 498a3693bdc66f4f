import type { Embedder } from './embedder';
import { VectorParam } from './vector';

/** One text through the embedder, as the parameter the repositories store or search with (see VectorParam). */
export async function embedText(embedder: Embedder, text: string): Promise<VectorParam> {
  const [vector] = await embedder.embed([text]);
  return new VectorParam(vector!);
}
