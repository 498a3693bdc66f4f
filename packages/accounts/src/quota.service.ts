import { usageRepository } from '@ams/db';
import type { AccountDeps, AuthContext } from './deps';

/** The caller's place in the current rate-limit window, as the rate limiter counted it. */
export interface RateWindow {
  limit: number;
  used: number;
  resetTime?: Date;
}

/**
 * GET /v1/quota (docs/clients.md, "Additional endpoints"): `used`/`limit`/`resetAt` are the key's request budget in the
 * current window (this request included); `usage` is what the account stores.
 */
export async function quota(deps: AccountDeps, auth: AuthContext, window: RateWindow) {
  const usage = await usageRepository.forAccount(deps.db, auth.accountId);
  const resetAt = (window.resetTime ?? new Date()).toISOString();
  return {
    object: 'quota' as const,
    used: window.used,
    limit: window.limit,
    remaining: Math.max(0, window.limit - window.used),
    resetAt,
    reset_at: resetAt,
    window_seconds: 60,
    usage,
  };
}
