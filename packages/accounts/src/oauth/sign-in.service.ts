import { accountsRepository, signInAttemptsRepository } from '@ams/db';
import { hashPassword, verifyPassword } from '../passwords';
import type { OAuthDeps } from './oauth-deps';

export type SignInResult = { accountId: string } | { failure: 'invalid' } | { failure: 'throttled'; retryAfterSeconds: number };

/** A hash to check a password against when the account does not exist, so both answers take as long. */
let decoy: Promise<string> | undefined;

/**
 * Signs a person in with the email and password their account registered with. Every attempt is
 * counted before the password is checked, against the address it came from and against the
 * account: past either budget the attempt is refused without running scrypt. The account's window
 * is short (OAUTH_SIGNIN_LOCKOUT_SECONDS), so a guesser can keep its owner out only that long after
 * its last attempt, and the address budget bounds how often one address can do so.
 */
export async function signIn(deps: OAuthDeps, input: { email: string; password: string; address: string }): Promise<SignInResult> {
  const limits = deps.oauth.signIn;
  const email = input.email.trim().toLowerCase();
  const now = Date.now();
  const byAddress = await signInAttemptsRepository.hit(deps.db, `address:${input.address}`, limits.addressWindowSeconds);
  const byAccount = await signInAttemptsRepository.hit(deps.db, `account:${email}`, limits.lockoutSeconds);
  const waits = [
    byAddress.attempts > limits.perAddress ? byAddress.window_started_at.getTime() + limits.addressWindowSeconds * 1000 - now : 0,
    byAccount.attempts > limits.perAccount ? byAccount.window_started_at.getTime() + limits.lockoutSeconds * 1000 - now : 0,
  ];
  const wait = Math.max(...waits);
  if (wait > 0) {
    deps.event('sign_in_throttled', { email, address: input.address, by: waits[0]! > 0 ? 'address' : 'account' });
    return { failure: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
  }
  const account = await accountsRepository.findByEmail(deps.db, email);
  const stored = account?.password_hash ?? (await (decoy ??= hashPassword('decoy password, matches nothing')));
  const matches = (await verifyPassword(input.password, stored)) && !!account?.password_hash;
  if (!account || !matches) {
    deps.event('sign_in_failed', { email, address: input.address });
    return { failure: 'invalid' };
  }
  await signInAttemptsRepository.clear(deps.db, `account:${email}`);
  await signInAttemptsRepository.sweep(deps.db, Math.max(limits.lockoutSeconds, limits.addressWindowSeconds));
  deps.event('sign_in_succeeded', { account_id: account.id, address: input.address });
  return { accountId: account.id };
}
