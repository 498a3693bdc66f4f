import os from 'node:os';
import { periodic, type Config, type Logger, type PeriodicTask } from '@ams/core';
import { reembedRepository, VECTOR_TABLES, type Knex, type ReembedCursor, type ReembedItem, type ReembedRunRow, type VectorTable } from '@ams/db';
import { toPgVector, type Embedder, type SwitchableEmbedder } from '@ams/embeddings';
import { followActiveModel } from './follow-active-model';
import type { ModelLoader } from './model-loader';

export interface ReembedRunnerDeps {
  db: Knex;
  logger: Logger;
  models: ModelLoader;
  /** This process's embedder: moved to the new model the moment this runner switches. */
  embedder?: SwitchableEmbedder;
  /** This process's name: the run's lease holder. */
  owner: string;
}

export interface ReembedRunnerSettings {
  batchSize: number;
  /** How often the database is checked for a run (and the active model followed). */
  pollMs: number;
  /** A lease not renewed this long belongs to a dead worker: another takes the run over. */
  leaseMs: number;
  /** False: only follow the active model (runs are the worker processes' job). */
  takesRuns: boolean;
}

type Phase = 'stage' | 'sweep';

/** How long ALTER TABLE may wait for searches in flight at the switch before it tries again later. */
const SWITCH_LOCK_TIMEOUT_MS = 2_000;

/**
 * Runs re-embed runs (docs/operations.md, "Re-embedding on a model change"), one batch at a time through the
 * target model, with the state in reembed_runs so any worker resumes a run a dead one left:
 * 1. stage: every live vector row gets a target-model vector in its staging column (keyset passes
 *    over memories, decisions, patterns; a row changed meanwhile is caught by the next pass);
 * 2. switch: one transaction swaps the staging and active columns and the active model;
 * 3. sweep: rows a write racing the switch left with the old model are embedded in place; once
 *    every process has had time to follow the switch, the old vectors are dropped.
 */
export class ReembedRunner {
  private task?: PeriodicTask;
  private stopping = false;

  constructor(
    private readonly deps: ReembedRunnerDeps,
    private readonly settings: ReembedRunnerSettings,
  ) {
    const { db, embedder, models, logger } = deps;
    embedder?.followWith(() => followActiveModel({ db, embedder, models, logger }));
  }

  start(): void {
    this.task ??= periodic({ name: 're-embed runner', intervalMs: this.settings.pollMs, logger: this.deps.logger }, () => this.tick());
  }

  /** Checks for work now (a run just started); one pass at a time. */
  wake(): void {
    void this.task?.runNow();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.task?.stop();
  }

  private async tick(): Promise<void> {
    const { db, embedder, models, logger, owner } = this.deps;
    if (embedder) await followActiveModel({ db, embedder, models, logger });
    if (!this.settings.takesRuns) return;
    const run = await reembedRepository.open(db);
    if (!run || !(await reembedRepository.lease(db, run.id, owner, this.settings.leaseMs))) return;
    let target: Embedder;
    try {
      target = await models.load(run.target_model);
    } catch (err) {
      await reembedRepository.finish(db, run.id, 'failed', `cannot load ${run.target_model}: ${(err as Error).message}`);
      return;
    }
    if (target.dimensions !== run.dimensions) {
      await reembedRepository.finish(db, run.id, 'failed', `${run.target_model} now gives ${target.dimensions} dimensions, not ${run.dimensions}`);
      return;
    }
    logger.info('re-embed run resumed', { run_id: run.id, status: run.status, target_model: run.target_model, done: run.done, total: run.total });
    if (run.status === 'running') {
      for (const table of VECTOR_TABLES) await reembedRepository.ensureStagingIndex(db, table, run.dimensions);
      if (!(await this.passes(run, target, 'stage'))) return;
      if (!(await reembedRepository.switchModels(db, run, owner, SWITCH_LOCK_TIMEOUT_MS))) return;
      embedder?.switchTo(target);
      logger.info('re-embed switched the active model', { run_id: run.id, model: target.model, dimensions: target.dimensions });
    }
    // Every process follows within pollMs: wait that out, sweep what stale writers left, then drop old vectors.
    await this.untilStopping(this.settings.pollMs * 2);
    if (!(await this.passes(run, target, 'sweep'))) return;
    for (const table of VECTOR_TABLES) {
      while (!this.stopping && (await reembedRepository.clearStaged(db, table, 500)) > 0) await reembedRepository.progress(db, run.id, owner, { done: 0, cursor: null });
    }
    if (this.stopping) return;
    await reembedRepository.finish(db, run.id, 'completed');
    logger.info('re-embed run completed', { run_id: run.id, model: target.model });
  }

  /**
   * Keyset passes until one finds nothing left. False when interrupted (stop, lease lost) or stuck:
   * rows the model keeps failing on fail the run, rather than passing over them forever.
   */
  private async passes(run: ReembedRunRow, target: Embedder, phase: Phase): Promise<boolean> {
    const { db, owner } = this.deps;
    let cursor: ReembedCursor | null = phase === 'stage' ? run.cursor : null;
    let left = await reembedRepository.countMissing(db, target.model, phase);
    const started = Date.now();
    let embedded = 0;
    while (left > 0) {
      if (phase === 'stage') await reembedRepository.resetTotal(db, run.id, left);
      let thisPass = 0;
      for (const table of VECTOR_TABLES) {
        if (cursor && VECTOR_TABLES.indexOf(cursor.table) > VECTOR_TABLES.indexOf(table)) continue;
        for (;;) {
          if (this.stopping) return false;
          const batch = await reembedRepository.nextBatch(db, table, target.model, phase, cursor, this.settings.batchSize);
          if (batch.length === 0) break;
          const stored = await this.embedAndStore(table, phase, target, batch);
          embedded += stored;
          thisPass += stored;
          const last = batch[batch.length - 1]!;
          cursor = { table, account_id: last.account_id, id: last.id };
          const seconds = (Date.now() - started) / 1000;
          const kept = await reembedRepository.progress(db, run.id, owner, {
            done: stored,
            cursor: phase === 'stage' ? cursor : null,
            ratePerSecond: seconds > 0 ? embedded / seconds : undefined,
            growTotal: phase === 'sweep' ? stored : 0,
          });
          if (!kept) return false;
          // Requests get their turn between batches: PGlite (embedded mode) runs queries on this thread.
          await new Promise((resolve) => setImmediate(resolve));
        }
        cursor = null;
      }
      left = await reembedRepository.countMissing(db, target.model, phase);
      if (left > 0 && thisPass === 0) {
        await reembedRepository.finish(db, run.id, 'failed', `${left} rows could not be embedded with ${target.model}`);
        return false;
      }
    }
    return true;
  }

  /** One model call for the batch; when it fails, each row alone, so one bad text fails only itself. */
  private async embedAndStore(table: VectorTable, phase: Phase, target: Embedder, batch: ReembedItem[]): Promise<number> {
    let vectors: Array<Float32Array | undefined>;
    try {
      vectors = await target.embed(batch.map((b) => b.text));
    } catch {
      vectors = [];
      for (const item of batch) vectors.push(await target.embed([item.text]).then(([v]) => v, () => undefined));
    }
    const items = batch.flatMap((item, i) => (vectors[i] ? [{ item, vector: toPgVector(vectors[i]!) }] : []));
    return reembedRepository.store(this.deps.db, table, phase, target.model, items);
  }

  private async untilStopping(ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (!this.stopping && Date.now() < end) await new Promise((r) => setTimeout(r, Math.min(100, end - Date.now())));
  }
}

/** The runner as configured: `takesRuns` false only follows the active model (an API process beside worker processes). */
export function reembedRunner(config: Config, deps: Omit<ReembedRunnerDeps, 'owner'>, takesRuns = true): ReembedRunner {
  return new ReembedRunner(
    { ...deps, owner: `${os.hostname()}:${process.pid}` },
    {
      batchSize: config.embeddingWorker.batchSize,
      pollMs: config.embeddingWorker.modelPollMs,
      leaseMs: config.embeddingWorker.stuckAfterMs,
      takesRuns,
    },
  );
}
