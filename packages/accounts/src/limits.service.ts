import { ApiError, toIso } from '@ams/core';
import { accountLimitsRepository, accountsRepository, accountUsageRepository, LIMIT_NAMES, type LimitOverrides } from '@ams/db';
import { assertOperator } from './accounts.service';
import type { AccountDeps, AuthContext } from './deps';
import type { UsageMeter } from './usage-meter';

export interface LimitsDeps extends AccountDeps {
  meter: UsageMeter;
}

const OPERATOR_ONLY = "Account limits and other accounts' usage belong to the operator: only the operator's account (the first one, whose key the first start printed) may read or change them";

/** 403 unless the caller is the operator; 404 when `accountId` names no account. */
export async function assertOperatorOver(deps: LimitsDeps, auth: AuthContext, accountId: string): Promise<void> {
  await assertOperator(deps, auth, OPERATOR_ONLY);
  if (!(await accountsRepository.exists(deps.db, accountId))) throw ApiError.notFound('Account');
}

const NO_OVERRIDES: LimitOverrides = Object.fromEntries(LIMIT_NAMES.map((n) => [n, null])) as unknown as LimitOverrides;

/** The account's limits in force, what the operator set, and the defaults they fall back to. */
function presentLimits(deps: LimitsDeps, accountId: string, overrides: LimitOverrides, updatedAt: Date | null) {
  return {
    object: 'account_limits' as const,
    account_id: accountId,
    ...deps.meter.limitsOf(accountId),
    overrides,
    defaults: deps.meter.defaults,
    updated_at: updatedAt ? toIso(updatedAt) : null,
  };
}

export async function getLimits(deps: LimitsDeps, auth: AuthContext, accountId: string) {
  await assertOperatorOver(deps, auth, accountId);
  const row = await accountLimitsRepository.forAccount(deps.db, accountId);
  const overrides = row ? pickOverrides(row) : NO_OVERRIDES;
  deps.meter.setOverrides(accountId, overrides);
  return presentLimits(deps, accountId, overrides, row?.updated_at ?? null);
}

const pickOverrides = (o: LimitOverrides): LimitOverrides => Object.fromEntries(LIMIT_NAMES.map((n) => [n, o[n] ?? null])) as unknown as LimitOverrides;

/**
 * Sets the account's overrides: `replace` (PUT) writes all six, an absent one back to its default;
 * otherwise (PATCH) only those given, null clearing one. The storage limits in force are written to
 * the account's counter row in the same transaction: the next create is checked against them.
 */
export async function setLimits(deps: LimitsDeps, auth: AuthContext, accountId: string, given: Partial<LimitOverrides>, replace: boolean) {
  await assertOperatorOver(deps, auth, accountId);
  const row = await deps.db.transaction(async (trx) => {
    const current = replace ? NO_OVERRIDES : pickOverrides((await accountLimitsRepository.forAccount(trx, accountId)) ?? NO_OVERRIDES);
    const next = pickOverrides({ ...current, ...given });
    const saved = await accountLimitsRepository.save(trx, accountId, next);
    const d = deps.meter.defaults;
    await accountUsageRepository.setStorageLimits(trx, accountId, next.max_memories ?? d.max_memories, next.max_storage_bytes ?? d.max_storage_bytes);
    return saved;
  });
  const overrides = pickOverrides(row);
  deps.meter.setOverrides(accountId, overrides);
  return presentLimits(deps, accountId, overrides, row.updated_at);
}
export type { LimitOverrides } from '@ams/db';
