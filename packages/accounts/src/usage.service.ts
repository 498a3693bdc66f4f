import { accountUsageRepository } from '@ams/db';
import { assertOperatorOver, type LimitsDeps } from './limits.service';
import type { AuthContext } from './deps';
import { utcPeriod } from './usage-meter';

/** 0 is "unlimited": null in the answer. */
const limitOrNull = (n: number) => (n > 0 ? n : null);

/**
 * What the account stores and did today and this month (UTC), each against its limit: the stored
 * figures from the counter row the memories trigger keeps, the activity from the daily counters
 * plus what this process has not flushed yet. Two reads by key, no scan of the memories.
 */
async function accountUsage(deps: LimitsDeps, accountId: string) {
  const { day, monthStart } = utcPeriod();
  const [stored, activity] = await Promise.all([
    accountUsageRepository.stored(deps.db, accountId),
    accountUsageRepository.activity(deps.db, accountId, day, monthStart),
  ]);
  const unflushed = deps.meter.unflushed(accountId, day);
  const limits = deps.meter.limitsOf(accountId);
  const counted = (name: 'requests' | 'searches' | 'embeddings', limit: Record<string, number | null>) => ({
    today: activity.today[name] + unflushed[name],
    this_month: activity.month[name] + unflushed[name],
    ...limit,
  });
  return {
    object: 'usage' as const,
    account_id: accountId,
    day,
    month: monthStart.slice(0, 7),
    memories: { used: stored.memories, limit: limitOrNull(limits.max_memories) },
    storage_bytes: { used: stored.storage_bytes, limit: limitOrNull(limits.max_storage_bytes) },
    vectors: { used: stored.vectors },
    requests: counted('requests', { limit_per_minute: limitOrNull(limits.requests_per_minute) }),
    searches: counted('searches', { limit_per_day: limitOrNull(limits.searches_per_day) }),
    embeddings: counted('embeddings', { limit_per_day: limitOrNull(limits.embeddings_per_day) }),
    fair_share_weight: limits.fair_share_weight,
  };
}

export function ownUsage(deps: LimitsDeps, auth: AuthContext) {
  return accountUsage(deps, auth.accountId);
}

export async function accountUsageForOperator(deps: LimitsDeps, auth: AuthContext, accountId: string) {
  await assertOperatorOver(deps, auth, accountId);
  return accountUsage(deps, accountId);
}
