import type { Db, RetieringSettingsRow } from '@ams/db';
import { retieringRepository } from '@ams/db';
import type { Dispatch } from './deps';
import { dispatchAfterCommit, memoryEventData, recordEvents } from './events';
import { asActor } from './history';

/**
 * Re-tiering by use and age (docs/api.md, "Re-tiering"), one account at a time, per its rules
 * (retieringRepository's DECIDE): recent recall promotes a step, long disuse demotes a step,
 * importance stretches the disuse period, a pinned tier (set by a user) never moves.
 */
export interface RetierOptions {
  /** Memories per batch: each batch is one statement in its own short transaction. */
  batchSize: number;
  /** Recalls newer than this are folded next run (a search's record may commit a moment after its time). */
  foldLagMs?: number;
  now?: Date;
  dispatch?: Dispatch;
  /** This process's searches still being recorded (written after they answered): awaited, so they count as recalls before now. */
  searches?: { written(): Promise<void> };
}

export interface RetierOutcome {
  scanned_batches: number;
  recalls_folded: number;
  promoted: number;
  demoted: number;
}

/**
 * Folds the recalls recorded since the last run, then walks the account's memories in id order,
 * batch after batch, each moved memory logged (tier_moves) and announced (memory.updated with
 * `changes: ['tier']` and `retiered`) in its batch's transaction.
 */
export async function retierAccount(db: Db, settings: RetieringSettingsRow, options: RetierOptions): Promise<RetierOutcome> {
  await options.searches?.written();
  const now = options.now ?? new Date();
  const lagMs = options.foldLagMs ?? 60_000;
  // No lag and no clock given (a run on request): up to the database's own clock. A Date holds
  // milliseconds and a record's time microseconds, so a record written in the run's millisecond
  // would fall past a Date's end and be folded a run late.
  const foldUntil = lagMs === 0 && !options.now ? null : new Date(now.getTime() - lagMs);
  const folded =
    !foldUntil || !settings.recalls_folded_until || settings.recalls_folded_until < foldUntil
      ? await retieringRepository.foldRecalls(db, settings.account_id, settings.recalls_folded_until, foldUntil, settings.promote_window_days / 2)
      : 0;
  const outcome: RetierOutcome = { scanned_batches: 0, recalls_folded: folded, promoted: 0, demoted: 0 };
  for (let afterId: string | null = null; ; ) {
    const { lastId, deliveries, moved } = await asActor(db, { change: 'retier' }, async (trx) => {
      const batch = await retieringRepository.retierBatch(trx, settings, afterId, options.batchSize, now);
      const events = batch.moved.map((m) => ({
        accountId: settings.account_id,
        type: 'memory.updated' as const,
        data: { ...memoryEventData(m), changes: ['tier'], tier: m.to_tier, retiered: { from: m.from_tier, to: m.to_tier, reason: m.reason } },
      }));
      return { ...batch, deliveries: await recordEvents(trx, events) };
    });
    dispatchAfterCommit(options.dispatch, deliveries);
    outcome.scanned_batches++;
    for (const m of moved) outcome[m.reason === 'recalled' ? 'promoted' : 'demoted']++;
    if (!lastId) break;
    afterId = lastId;
  }
  await retieringRepository.finishRun(db, settings.account_id, outcome.promoted + outcome.demoted);
  return outcome;
}
