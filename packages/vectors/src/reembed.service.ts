import { ApiError } from '@ams/core';
import { embeddingStateRepository, reembedRepository, type ReembedRunRow } from '@ams/db';
import type { AppContext, AuthContext } from './deps';
import { assertOperator } from '@ams/accounts';

/** A run as the API shows it: progress, the measured rate and what it makes of the rest. */
export function presentReembedRun(run: ReembedRunRow) {
  const rate = run.rate_per_second && run.rate_per_second > 0 ? run.rate_per_second : null;
  const open = run.status === 'running' || run.status === 'switched';
  return {
    object: 'reembed_run' as const,
    id: run.id,
    status: run.status,
    from_model: run.from_model,
    target_model: run.target_model,
    dimensions: run.dimensions,
    done: run.done,
    total: run.total,
    rate_per_second: rate === null ? null : Math.round(rate * 100) / 100,
    eta_seconds: open && rate !== null ? Math.ceil(Math.max(0, run.total - run.done) / rate) : null,
    error: run.error,
    started_at: run.started_at.toISOString(),
    switched_at: run.switched_at?.toISOString() ?? null,
    finished_at: run.finished_at?.toISOString() ?? null,
  };
}

/** The store's active model (this process's until a first run records it) and the latest run. */
export async function reembedStatus(ctx: AppContext) {
  const state = (await embeddingStateRepository.get(ctx.db.knex)) ?? { active_model: ctx.embedder.model, dimensions: ctx.embedder.dimensions };
  const run = await reembedRepository.latest(ctx.db.knex);
  return { object: 'reembed_status' as const, active_model: state.active_model, dimensions: state.dimensions, run: run ? presentReembedRun(run) : null };
}

/** The open run's progress for health, or null. */
export async function openReembedProgress(ctx: AppContext) {
  const run = await reembedRepository.open(ctx.db.knex);
  return run ? presentReembedRun(run) : null;
}

/**
 * Starts re-embedding every vector with `model` (default: the configured one). The model must be
 * in MODEL_DIR (a request never downloads) and not already active; one run at a time (409).
 * The embedding worker (or the in-process one) takes the run up within EMBEDDING_MODEL_POLL_MS.
 * The model is every tenant's, so only the operator's account may change it, not any account's admin.
 */
export async function startReembed(ctx: AppContext, auth: AuthContext, requested: string | undefined) {
  await assertOperator(ctx, auth, "Re-embedding changes every account's model: only the operator's account (the first one, whose key the first start printed) may start it");
  const model = requested ?? ctx.config.embedding.model;
  // The first run records the model the store holds now (this process's) as the active one.
  const state = await embeddingStateRepository.ensure(ctx.db.knex, { active_model: ctx.embedder.model, dimensions: ctx.embedder.dimensions });
  if (await reembedRepository.open(ctx.db.knex)) throw ApiError.conflict('A re-embed run is already in progress');
  if (model === state.active_model) throw ApiError.invalidField('model', `${model} is already the active model`);
  if (!ctx.models?.available(model)) {
    throw ApiError.invalidField('model', `no model files for ${model} in MODEL_DIR (fetch them first: EMBEDDING_MODEL=${model} npm run model:download)`);
  }
  let dimensions: number;
  try {
    dimensions = (await ctx.models.load(model)).dimensions;
  } catch (err) {
    throw ApiError.invalidField('model', `${model} cannot be loaded: ${(err as Error).message}`);
  }
  const total = await reembedRepository.countMissing(ctx.db.knex, model, 'stage');
  const run = await reembedRepository.create(ctx.db.knex, { fromModel: state.active_model, targetModel: model, dimensions, total });
  if (!run) throw ApiError.conflict('A re-embed run is already in progress');
  ctx.reembedRunner?.wake();
  ctx.logger.info('re-embed run started', { run_id: run.id, from_model: run.from_model, target_model: model, dimensions, total });
  return presentReembedRun(run);
}
