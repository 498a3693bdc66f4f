import { toIso, toUnixSeconds } from '@ams/core';
import { Db, PageParams, RETIERING_DEFAULTS, RetieringRules, retieringRepository, RetieringSettingsRow, TierMoveRow } from '@ams/db';
import type { Dispatch } from './deps';
import { retierAccount } from './retiering';

/** What the re-tiering routes use: the database, the job's settings (RETIERING_*) and the event dispatcher. */
export interface RetieringDeps {
  db: Db;
  /** How often the scheduled job visits an enabled account (RETIERING_INTERVAL_MS; 0: no job in this process). */
  intervalMs: number;
  batchSize: number;
  dispatch?: Dispatch;
  /** This process's search records still being written: a run on request counts them. */
  searches?: { written(): Promise<void> };
}

/** The account's rules (the defaults, off, until an admin saves some) and its last run. */
function presentSettings(row: RetieringSettingsRow | undefined, intervalMs: number) {
  const rules: RetieringRules = row ?? RETIERING_DEFAULTS;
  return {
    object: 'retiering_settings' as const,
    enabled: rules.enabled,
    promote_recalls: rules.promote_recalls,
    promote_window_days: rules.promote_window_days,
    demote_after_days: rules.demote_after_days,
    interval_seconds: Math.round(intervalMs / 1000),
    last_run_at: toIso(row?.last_run_at ?? null),
    last_run_moved: row?.last_run_moved ?? null,
  };
}

function presentTierMove(m: TierMoveRow) {
  return { object: 'tier_move' as const, id: m.id, memory_id: m.memory_id, from: m.from_tier, to: m.to_tier, reason: m.reason, moved_at: toUnixSeconds(m.created_at)! };
}

export async function getRetieringSettings(deps: RetieringDeps, accountId: string) {
  return presentSettings(await retieringRepository.settings(deps.db, accountId), deps.intervalMs);
}

export async function saveRetieringSettings(deps: RetieringDeps, accountId: string, rules: Partial<RetieringRules>) {
  return presentSettings(await retieringRepository.saveSettings(deps.db, accountId, rules), deps.intervalMs);
}

/** Re-tiers the account now, with its rules (on or off: asking is explicit), and answers what moved. */
export async function runRetieringNow(deps: RetieringDeps, accountId: string) {
  const settings = (await retieringRepository.settings(deps.db, accountId)) ?? (await retieringRepository.saveSettings(deps.db, accountId, {}));
  // Every recall recorded so far counts: the caller asked after them.
  const outcome = await retierAccount(deps.db, settings, { batchSize: deps.batchSize, dispatch: deps.dispatch, foldLagMs: 0, searches: deps.searches });
  return { object: 'retiering_run' as const, ...outcome };
}

export async function listTierMoves(deps: RetieringDeps, accountId: string, query: { memory_id?: string } & PageParams) {
  const page = await retieringRepository.moves(deps.db, accountId, { memoryId: query.memory_id }, query);
  return { ...page, data: page.rows.map(presentTierMove) };
}
