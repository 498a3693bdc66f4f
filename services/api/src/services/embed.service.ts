import type { AppContext } from '../context';
import type { EmbedBody } from '../routes/embed/embed.schemas';

const round = (n: number) => Math.round(n * 1e7) / 1e7;

/**
 * POST /v1/embed (docs/clients.md, "Additional endpoints"): vectors from the model that embeds stored memories, so a
 * client's local index compares like with like. `prefix` is accepted for task-prefixed models;
 * the configured model takes none, so it does not change the text.
 */
export async function embed(ctx: AppContext, body: EmbedBody) {
  const texts = body.texts ?? [body.text!];
  const vectors = await ctx.embedder.embed(texts);
  const arrays = vectors.map((v) => Array.from(v, round));
  return {
    object: 'embedding' as const,
    model: ctx.embedder.model,
    dimension: ctx.embedder.dimensions,
    ...(body.texts ? { embeddings: arrays } : { embedding: arrays[0]! }),
  };
}
