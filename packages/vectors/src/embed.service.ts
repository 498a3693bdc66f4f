import type { VectorDeps } from './deps';

/** Validated input (the route schema types its body with it). */
export interface EmbedBody {
  text?: string;
  texts?: string[];
  prefix?: 'search_query' | 'search_document';
}

const round = (n: number) => Math.round(n * 1e7) / 1e7;

/**
 * POST /v1/embed (docs/clients.md, "Additional endpoints"): vectors from the model that embeds stored memories, so a
 * client's local index compares like with like. `prefix` is accepted for task-prefixed models;
 * the configured model takes none, so it does not change the text.
 */
export async function embed(deps: Pick<VectorDeps, 'embedder'>, body: EmbedBody) {
  const texts = body.texts ?? [body.text!];
  const vectors = await deps.embedder.embed(texts);
  const arrays = vectors.map((v) => Array.from(v, round));
  return {
    object: 'embedding' as const,
    model: deps.embedder.model,
    dimension: deps.embedder.dimensions,
    ...(body.texts ? { embeddings: arrays } : { embedding: arrays[0]! }),
  };
}
