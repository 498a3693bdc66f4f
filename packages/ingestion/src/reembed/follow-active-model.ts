import type { Logger } from '@ams/core';
import { embeddingStateRepository, reembedRepository, type Knex } from '@ams/db';
import type { SwitchableEmbedder } from '@ams/embeddings';
import type { ModelLoader } from './model-loader';

/**
 * Keeps this process's embedder on the store's active model (embedding_state), which a re-embed
 * run switches: every process (API replicas, workers) follows it within EMBEDDING_MODEL_POLL_MS.
 * A store never re-embedded has no active model recorded: each process uses its configured one, as
 * before. While a run is open its target is loaded ahead, so the switch itself costs nothing here.
 */
export async function followActiveModel(deps: { db: Knex; embedder: SwitchableEmbedder; models: ModelLoader; logger: Logger }): Promise<void> {
  const { db, embedder, models, logger } = deps;
  const state = await embeddingStateRepository.get(db);
  if (state && state.active_model !== embedder.model) {
    const next = await models.load(state.active_model);
    embedder.switchTo(next);
    logger.info('embedding model switched', { model: next.model, dimensions: next.dimensions });
  }
  const run = await reembedRepository.open(db);
  if (run?.status === 'running') await models.load(run.target_model);
}
