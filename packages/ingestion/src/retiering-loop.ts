import type { Config, Logger } from '@ams/core';
import { type Knex, retieringRepository, type RetieringSettingsRow } from '@ams/db';
import { LeaseLoop } from '@ams/jobs';
import { type Dispatch, retierAccount } from '@ams/memories/worker';

export interface RetieringLoop {
  start(): void;
  /** Stops sweeping; an account still being re-tiered after `drainMs` is handed back (due again at once). */
  stop(drainMs?: number): Promise<void>;
  /** One sweep now (tests, and the first sweep at start). */
  sweep(): Promise<RetieringSettingsRow[]>;
}

/**
 * The scheduled re-tiering job (docs/api.md, "Re-tiering"): every RETIERING_INTERVAL_MS it claims
 * the enabled accounts not re-tiered within that interval (one at a time: it runs beside the
 * embedding work and never competes with it for more than one connection) and re-tiers each.
 * Where it runs: beside the other periodic work, in the embedding worker processes, or in the
 * API process in embedded mode; the claim in the database keeps processes off each other's accounts.
 */
export function retieringLoop(
  config: Pick<Config, 'retiering'>,
  deps: { db: Knex; logger: Logger; dispatch?: Dispatch; foldLagMs?: number },
): RetieringLoop {
  const { intervalMs, batchSize } = config.retiering;
  const loop = new LeaseLoop<RetieringSettingsRow>(
    {
      claim: (n) => retieringRepository.claimDue(deps.db, n, intervalMs),
      run: async (settings) => {
        const started = Date.now();
        const outcome = await retierAccount(deps.db, settings, { batchSize, dispatch: deps.dispatch, foldLagMs: deps.foldLagMs });
        deps.logger.info('re-tiered', { account_id: settings.account_id, ...outcome, ms: Date.now() - started });
      },
      release: (held) => retieringRepository.release(deps.db, held.map((s) => s.account_id)),
    },
    { name: 'retiering', concurrency: 1, sweepIntervalMs: intervalMs > 0 ? intervalMs : undefined },
    deps.logger,
  );
  return {
    start() {
      if (intervalMs > 0) void loop.start();
    },
    async stop(drainMs) {
      await loop.stop(drainMs);
    },
    sweep: () => loop.sweep(),
  };
}
