import { ApiError, toIso } from '@ams/core';
import { accountsRepository } from '@ams/db';
import type { AccountDeps, AuthContext } from './deps';
import { hashPassword } from './passwords';
import { SCOPES } from './scopes';
import { issueApiKey } from './api-keys.service';

/** Creates the account and its first key (every scope) in one transaction. */
export async function registerAccount(deps: AccountDeps, input: { email: string; password: string }) {
  // Hashed before the transaction: ~0.3 s of scrypt must not hold a connection.
  const passwordHash = await hashPassword(input.password);
  return deps.db.transaction(async (trx) => {
    const account = await accountsRepository.insert(trx, { email: input.email, passwordHash });
    if (!account) throw ApiError.conflict('An account with this email already exists');
    const { row, key } = await issueApiKey({ db: trx }, account.id, {
      name: 'default',
      scopes: [...SCOPES],
    });
    return {
      account_id: account.id,
      email: account.email,
      api_key: key,
      api_key_id: row.id,
      scopes: row.scopes,
      created_at: toIso(account.created_at),
    };
  });
}

/**
 * First start of an empty store: one admin account with a full-scope key, returned for printing once.
 * Later starts find an account and return nothing.
 */
export async function bootstrapAdminKey(deps: AccountDeps): Promise<string | undefined> {
  return deps.db.transaction(async (trx) => {
    await accountsRepository.lockAgainstInserts(trx);
    if ((await accountsRepository.count(trx)) > 0) return undefined;
    const account = await accountsRepository.insert(trx, { email: 'admin@localhost', passwordHash: null });
    if (!account) return undefined;
    const { key } = await issueApiKey({ db: trx }, account.id, {
      name: 'bootstrap admin',
      scopes: [...SCOPES],
    });
    return key;
  });
}

/**
 * Service-wide operations (the model, every tenant's request counts) belong to the operator: the
 * oldest account, whose key the first start printed, not any account's admin. 403 with `refusal` otherwise.
 */
export async function assertOperator(deps: AccountDeps, auth: AuthContext, refusal: string): Promise<void> {
  if ((await accountsRepository.operatorId(deps.db)) !== auth.accountId) throw ApiError.forbidden(refusal);
}
