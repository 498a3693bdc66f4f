import { ApiError, Logger, toIso } from '@ams/core';
import { agentsRepository, ApiKeyRow, apiKeysRepository, PageParams } from '@ams/db';
import type { AccountDeps, AuthContext, KeyCheckDeps } from './deps';
import { apiKeyCacheFor } from './api-key-cache';
import { generateApiKey, hashApiKey, hashesEqual, keyPrefix } from './api-key-tokens';
import { hasScope, Scope } from './scopes';

const TOUCH_INTERVAL_MS = 60_000;

export type AuthResult = { auth: AuthContext } | { failure: 'invalid' | 'expired' | 'revoked' };

/** `logger`: the request's (its lines carry the request_id), asked for only when a line is written. */
export async function authenticateApiKey(deps: KeyCheckDeps, presented: string, logger: () => Logger = () => deps.logger): Promise<AuthResult> {
  if (!presented.startsWith('mem_') || presented.length > 200) return { failure: 'invalid' };
  const hash = hashApiKey(presented);
  const cache = apiKeyCacheFor(deps.db);
  const cached = cache.get(hash, deps.apiKeyCacheMs);
  const readAt = Date.now();
  const row = cached ?? (await apiKeysRepository.findByHash(deps.db, hash));
  if (!row || !hashesEqual(row.key_hash, hash)) return { failure: 'invalid' };
  if (row.revoked_at) return { failure: 'revoked' };
  if (row.expires_at && row.expires_at.getTime() <= Date.now()) return { failure: 'expired' };
  // Cached from the read only, never refreshed by use: another process's revocation shows within the TTL.
  if (!cached && deps.apiKeyCacheMs > 0) cache.set(hash, row, readAt);
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > TOUCH_INTERVAL_MS) {
    row.last_used_at = new Date();
    // Bookkeeping only: a failure here must not fail the request.
    apiKeysRepository.touch(deps.db, row.account_id, row.id).catch((err: Error) => {
      logger().warn('could not record key use', { key_id: row.id, error: err.message });
    });
  }
  return { auth: { accountId: row.account_id, keyId: row.id, scopes: row.scopes, agentId: row.agent_id } };
}

export interface CreateKeyInput {
  name: string;
  scopes: Scope[];
  expiresAt?: Date | null;
  agentId?: string | null;
}

/** Inserts a key and returns the row with the raw key, which exists nowhere else afterwards. */
export async function issueApiKey(
  deps: AccountDeps,
  accountId: string,
  input: CreateKeyInput,
): Promise<{ row: ApiKeyRow; key: string }> {
  const key = generateApiKey();
  const row = await apiKeysRepository.insert(deps.db, {
    accountId,
    name: input.name,
    keyHash: hashApiKey(key),
    keyPrefix: keyPrefix(key),
    scopes: [...new Set(input.scopes)],
    agentId: input.agentId ?? null,
    expiresAt: input.expiresAt ?? null,
  });
  return { row, key };
}

/** A key may only hand out what it holds itself. */
export async function createApiKey(deps: AccountDeps, caller: AuthContext, input: CreateKeyInput) {
  const missing = input.scopes.filter((s) => !hasScope(caller.scopes, s));
  if (missing.length > 0) {
    throw ApiError.forbidden(`Insufficient scope. Required: ${missing[0]}`);
  }
  if (input.agentId) {
    const agent = await agentsRepository.findLive(deps.db, caller.accountId, input.agentId);
    if (!agent) throw ApiError.notFound('Agent');
  }
  return issueApiKey(deps, caller.accountId, input);
}

export const listApiKeys = (deps: AccountDeps, accountId: string, page: PageParams) =>
  apiKeysRepository.list(deps.db, accountId, page);

export async function revokeApiKey(deps: AccountDeps, accountId: string, id: string): Promise<void> {
  const revoked = await apiKeysRepository.revoke(deps.db, accountId, id);
  apiKeyCacheFor(deps.db).evictKey(accountId, id);
  if (!revoked) throw ApiError.notFound('API key');
}

/** The public shape: never the key or its hash. */
export function presentApiKey(row: ApiKeyRow) {
  return {
    object: 'api_key',
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: row.scopes,
    agent_id: row.agent_id,
    expires_at: toIso(row.expires_at),
    revoked_at: toIso(row.revoked_at),
    last_used_at: toIso(row.last_used_at),
    created_at: toIso(row.created_at),
  };
}
