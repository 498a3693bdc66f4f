import { toPgVector } from '@ams/embeddings';
import type { AppContext } from '../context';

/** One text through the configured embedder, as the pgvector literal the repositories store. */
export async function embedText(ctx: AppContext, text: string): Promise<string> {
  const [vector] = await ctx.embedder.embed([text]);
  return toPgVector(vector!);
}
