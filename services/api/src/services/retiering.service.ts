import { toIso, toUnixSeconds } from '@ams/core';
import { PageParams, RETIERING_DEFAULTS, RetieringRules, retieringRepository, RetieringSettingsRow, TierMoveRow } from '@ams/db';
import { retierAccount } from '@ams/memories';
import type { AppContext, AuthContext } from '../context';

/** The account's rules (the defaults, off, until an admin saves some) and its last run. */
function presentSettings(row: RetieringSettingsRow | undefined, intervalMs: number) {
  const rules: RetieringRules = row ?? RETIERING_DEFAULTS;
  return {
    object: 'retiering_settings' as const,
    enabled: rules.enabled,
    promote_recalls: rules.promote_recalls,
    promote_window_days: rules.promote_window_days,
    demote_after_days: rules.demote_after_days,
    // How often the scheduled job visits an enabled account (RETIERING_INTERVAL_MS; 0: no job here).
    interval_seconds: Math.round(intervalMs / 1000),
    last_run_at: toIso(row?.last_run_at ?? null),
    last_run_moved: row?.last_run_moved ?? null,
  };
}

export function presentTierMove(m: TierMoveRow) {
  return { object: 'tier_move' as const, id: m.id, memory_id: m.memory_id, from: m.from_tier, to: m.to_tier, reason: m.reason, moved_at: toUnixSeconds(m.created_at)! };
}

export async function getRetieringSettings(ctx: AppContext, auth: AuthContext) {
  return presentSettings(await retieringRepository.settings(ctx.db.knex, auth.accountId), ctx.config.retiering.intervalMs);
}

export async function saveRetieringSettings(ctx: AppContext, auth: AuthContext, rules: Partial<RetieringRules>) {
  return presentSettings(await retieringRepository.saveSettings(ctx.db.knex, auth.accountId, rules), ctx.config.retiering.intervalMs);
}

/** Re-tiers the account now, with its rules (on or off: asking is explicit), and answers what moved. */
export async function runRetieringNow(ctx: AppContext, auth: AuthContext) {
  const db = ctx.db.knex;
  const settings = (await retieringRepository.settings(db, auth.accountId)) ?? (await retieringRepository.saveSettings(db, auth.accountId, {}));
  // Every recall recorded so far counts: the caller asked after them.
  const outcome = await retierAccount(db, settings, { batchSize: ctx.config.retiering.batchSize, dispatch: ctx.webhookDispatch, foldLagMs: 0 });
  return { object: 'retiering_run' as const, ...outcome };
}

export async function listTierMoves(ctx: AppContext, auth: AuthContext, query: { memory_id?: string } & PageParams) {
  const page = await retieringRepository.moves(ctx.db.knex, auth.accountId, { memoryId: query.memory_id }, query);
  return { ...page, data: page.rows.map(presentTierMove) };
}
