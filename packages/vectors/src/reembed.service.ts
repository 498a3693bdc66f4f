import { ApiError } from '@ams/core';
import { embeddingStateRepository, reembedRepository, type ReembedRunRow } from '@ams/db';
import { assertOperator } from '@ams/accounts';
import type { AuthContext, ReembedDeps, VectorDeps } from './deps';

/** A run as the API shows it: progress, the measured rate and what it makes of the rest. */
function presentReembedRun(run: ReembedRunRow) {
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
export async function reembedStatus(deps: VectorDeps) {
  const state = (await embeddingStateRepository.get(deps.db)) ?? { active_model: deps.embedder.model, dimensions: deps.embedder.dimensions };
  const run = await reembedRepository.latest(deps.db);
  return { object: 'reembed_status' as const, active_model: state.active_model, dimensions: state.dimensions, run: run ? presentReembedRun(run) : null };
}

/** The open run's progress for health, or null. */
export async function openReembedProgress(deps: Pick<VectorDeps, 'db'>) {
  const run = await reembedRepository.open(deps.db);
  return run ? presentReembedRun(run) : null;
}

/**
 * Starts re-embedding every vector with `model` (default: the configured one). The model must be
 * in MODEL_DIR (a request never downloads) and not already active; one run at a time (409).
 * The embedding worker (or the in-process one) takes the run up within EMBEDDING_MODEL_POLL_MS.
 * The model is every tenant's, so only the operator's account may change it, not any account's admin.
 */
export async function startReembed(deps: ReembedDeps, auth: AuthContext, requested: string | undefined) {
  await assertOperator(deps, auth, "Re-embedding changes every account's model: only the operator's account (the first one, whose key the first start printed) may start it");
  const model = requested ?? deps.defaultModel;
  // The first run records the model the store holds now (this process's) as the active one.
  const state = await embeddingStateRepository.ensure(deps.db, { active_model: deps.embedder.model, dimensions: deps.embedder.dimensions });
  if (await reembedRepository.open(deps.db)) throw ApiError.conflict('A re-embed run is already in progress');
  if (model === state.active_model) throw ApiError.invalidField('model', `${model} is already the active model`);
  if (!deps.models?.available(model)) {
    throw ApiError.invalidField('model', `no model files for ${model} in MODEL_DIR (fetch them first: EMBEDDING_MODEL=${model} npm run model:download)`);
  }
  let dimensions: number;
  try {
    dimensions = (await deps.models.load(model)).dimensions;
  } catch (err) {
    throw ApiError.invalidField('model', `${model} cannot be loaded: ${(err as Error).message}`);
  }
  const total = await reembedRepository.countMissing(deps.db, model, 'stage');
  const run = await reembedRepository.create(deps.db, { fromModel: state.active_model, targetModel: model, dimensions, total });
  if (!run) throw ApiError.conflict('A re-embed run is already in progress');
  deps.reembedRunner?.wake();
  deps.logger.info('re-embed run started', { run_id: run.id, from_model: run.from_model, target_model: model, dimensions, total });
  return presentReembedRun(run);
}
