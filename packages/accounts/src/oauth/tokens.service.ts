import { toIso, type Logger } from '@ams/core';
import { Knex, oauthCodesRepository, oauthGrantsRepository, OAuthGrantRow, oauthTokensRepository, Page, PageParams } from '@ams/db';
import type { AuthContext } from '../deps';
import { sameResource } from './authorization.service';
import type { OAuthDeps } from './oauth-deps';
import { OAuthRefusal } from './oauth-deps';
import { hashSecret, OAUTH_PREFIX, randomSecret } from './oauth-secrets';

const TOUCH_INTERVAL_MS = 60_000;

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

async function issueTokens(deps: OAuthDeps, db: Knex, grant: { account_id: string; id: string; scopes: string[] }): Promise<IssuedTokens> {
  const access = randomSecret(OAUTH_PREFIX.access);
  const refresh = randomSecret(OAUTH_PREFIX.refresh);
  const now = Date.now();
  const { accessTokenTtlSeconds, refreshTokenTtlSeconds } = deps.oauth;
  await oauthTokensRepository.insert(db, [
    { token_hash: hashSecret(access), kind: 'access', account_id: grant.account_id, grant_id: grant.id, expires_at: new Date(now + accessTokenTtlSeconds * 1000) },
    { token_hash: hashSecret(refresh), kind: 'refresh', account_id: grant.account_id, grant_id: grant.id, expires_at: new Date(now + refreshTokenTtlSeconds * 1000) },
  ]);
  return { access_token: access, token_type: 'Bearer', expires_in: accessTokenTtlSeconds, refresh_token: refresh, scope: grant.scopes.join(' ') };
}

async function revokeGrantFor(deps: OAuthDeps, accountId: string, grantId: string, reason: string, event: 'code_replayed' | 'refresh_token_replayed'): Promise<void> {
  await oauthGrantsRepository.revoke(deps.db, accountId, grantId, reason);
  deps.event(event, { account_id: accountId, grant_id: grantId });
}

const invalidCode = () => new OAuthRefusal('invalid_grant', 'Invalid, expired or already used authorization code');

/**
 * The PKCE challenge the code was issued against (the endpoint checks the verifier). A code seen
 * again after its use means it leaked: the grant it made is revoked with every token it issued.
 */
export async function challengeForCode(deps: OAuthDeps, clientId: string, code: string): Promise<string> {
  if (!code.startsWith(OAUTH_PREFIX.code) || code.length > 200) throw invalidCode();
  const row = await oauthCodesRepository.findByHash(deps.db, hashSecret(code));
  if (!row || row.client_id !== clientId) throw invalidCode();
  if (row.used_at) {
    await revokeGrantFor(deps, row.account_id, row.grant_id, 'authorization code used twice', 'code_replayed');
    throw invalidCode();
  }
  if (row.expires_at.getTime() <= Date.now()) throw invalidCode();
  return row.code_challenge;
}

/** Trades a code (its PKCE verifier already checked) for the grant's first tokens. */
export async function exchangeCode(deps: OAuthDeps, input: { clientId: string; code: string; redirectUri?: string; resource?: string }): Promise<IssuedTokens> {
  const hash = hashSecret(input.code);
  const used = await oauthCodesRepository.use(deps.db, hash);
  if (!used) {
    const seen = await oauthCodesRepository.findByHash(deps.db, hash);
    if (seen) await revokeGrantFor(deps, seen.account_id, seen.grant_id, 'authorization code used twice', 'code_replayed');
    throw invalidCode();
  }
  if (used.client_id !== input.clientId || used.expires_at.getTime() <= Date.now()) throw invalidCode();
  if (input.redirectUri !== used.redirect_uri) throw new OAuthRefusal('invalid_grant', 'redirect_uri differs from the one the code was issued to');
  const grant = await oauthGrantsRepository.find(deps.db, used.account_id, used.grant_id);
  if (!grant || grant.revoked_at) throw invalidCode();
  if (input.resource !== undefined && !sameResource(input.resource, grant.resource)) throw new OAuthRefusal('invalid_target', `This grant is for ${grant.resource}`);
  const tokens = await issueTokens(deps, deps.db, grant);
  deps.event('code_exchanged', { account_id: grant.account_id, client_id: grant.client_id, grant_id: grant.id });
  return tokens;
}

const invalidRefresh = () => new OAuthRefusal('invalid_grant', 'Invalid, expired or revoked refresh token');

/**
 * Rotates a refresh token: the one presented stops working and a new pair is issued. A refresh
 * token presented after its rotation was copied: the grant is revoked.
 */
export async function refreshTokens(deps: OAuthDeps, input: { clientId: string; refreshToken: string; scopes?: string[]; resource?: string }): Promise<IssuedTokens> {
  if (!input.refreshToken.startsWith(OAUTH_PREFIX.refresh) || input.refreshToken.length > 200) throw invalidRefresh();
  const hash = hashSecret(input.refreshToken);
  const row = await oauthTokensRepository.findWithGrant(deps.db, hash);
  if (!row || row.kind !== 'refresh' || row.client_id !== input.clientId || row.grant_revoked_at) throw invalidRefresh();
  if (input.resource !== undefined && !sameResource(input.resource, row.resource)) throw new OAuthRefusal('invalid_target', `This grant is for ${row.resource}`);
  const wider = (input.scopes ?? []).find((s) => !row.scopes.includes(s));
  if (wider) throw new OAuthRefusal('invalid_scope', `The grant does not include ${wider}`);
  if (row.expires_at.getTime() <= Date.now()) throw invalidRefresh();
  const tokens = await deps.db.transaction(async (trx) => {
    // Of two refreshes with one token, the first rotates it; the second finds it revoked.
    const rotated = row.revoked_at ? undefined : await oauthTokensRepository.revoke(trx, hash);
    if (rotated) await oauthTokensRepository.deleteExpired(trx, row.account_id, row.grant_id);
    return rotated ? issueTokens(deps, trx, { account_id: row.account_id, id: row.grant_id, scopes: row.scopes }) : undefined;
  });
  if (!tokens) {
    await revokeGrantFor(deps, row.account_id, row.grant_id, 'refresh token used after rotation', 'refresh_token_replayed');
    throw invalidRefresh();
  }
  deps.event('token_refreshed', { account_id: row.account_id, client_id: row.client_id, grant_id: row.grant_id });
  return tokens;
}

export type AccessCheck = { auth: AuthContext; clientId: string; expiresAt: number; resource: string } | { failure: 'invalid' | 'expired' | 'revoked' };

/**
 * Checks an access token presented to the MCP endpoint: one read of the token with its grant, so a
 * revocation holds from the next request. A token for another resource is refused (RFC 8707).
 */
export async function checkAccessToken(deps: OAuthDeps, token: string, logger: Logger): Promise<AccessCheck> {
  if (!token.startsWith(OAUTH_PREFIX.access) || token.length > 200) return { failure: 'invalid' };
  const row = await oauthTokensRepository.findWithGrant(deps.db, hashSecret(token));
  const failure = !row || row.kind !== 'access' || !sameResource(row.resource, deps.oauth.resource)
    ? 'invalid'
    : row.revoked_at || row.grant_revoked_at
      ? 'revoked'
      : row.expires_at.getTime() <= Date.now()
        ? 'expired'
        : undefined;
  if (failure || !row) {
    deps.event('token_refused', { reason: failure ?? 'invalid', grant_id: row?.grant_id });
    return { failure: failure ?? 'invalid' };
  }
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > TOUCH_INTERVAL_MS) {
    oauthGrantsRepository.touch(deps.db, row.account_id, row.grant_id).catch((err: Error) => {
      logger.warn('could not record grant use', { grant_id: row.grant_id, error: err.message });
    });
  }
  return {
    // The grant stands where a key would: rate limits, write fences and history name it.
    auth: { accountId: row.account_id, keyId: row.grant_id, scopes: row.scopes, agentId: row.agent_id },
    clientId: row.client_id,
    expiresAt: Math.floor(row.expires_at.getTime() / 1000),
    resource: row.resource,
  };
}

/**
 * RFC 7009: a client revokes its own token. A refresh token ends the grant with all its tokens;
 * an access token ends only itself. Unknown tokens, and other clients' tokens, are ignored.
 */
export async function revokeToken(deps: OAuthDeps, clientId: string, token: string): Promise<void> {
  if (token.length > 200) return;
  const hash = hashSecret(token);
  const row = await oauthTokensRepository.findWithGrant(deps.db, hash);
  if (!row || row.client_id !== clientId) return;
  if (row.kind === 'refresh') await oauthGrantsRepository.revoke(deps.db, row.account_id, row.grant_id, 'refresh token revoked by its client');
  else await oauthTokensRepository.revoke(deps.db, hash);
  deps.event('token_revoked', { account_id: row.account_id, client_id: clientId, grant_id: row.grant_id, kind: row.kind });
}

export const listGrants = (deps: OAuthDeps, accountId: string, page: PageParams): Promise<Page<OAuthGrantRow & { client_metadata: Record<string, unknown> }>> =>
  oauthGrantsRepository.list(deps.db, accountId, page);

/** The account ends a connector's access: every token of the grant stops at its next request. */
export async function revokeGrant(deps: OAuthDeps, accountId: string, grantId: string): Promise<boolean> {
  const row = await oauthGrantsRepository.revoke(deps.db, accountId, grantId, 'revoked by the account');
  if (row) deps.event('grant_revoked', { account_id: accountId, grant_id: grantId, client_id: row.client_id });
  return !!row;
}

/** The public shape of a grant: the connected client, what it may do, when it was last used. */
export function presentGrant(row: OAuthGrantRow & { client_metadata: Record<string, unknown> }) {
  const redirectUris = Array.isArray(row.client_metadata.redirect_uris) ? (row.client_metadata.redirect_uris as string[]) : [];
  return {
    object: 'oauth_grant',
    id: row.id,
    client_id: row.client_id,
    client_name: typeof row.client_metadata.client_name === 'string' ? row.client_metadata.client_name : null,
    redirect_hosts: [...new Set(redirectUris.map((u) => new URL(u).host))],
    scopes: row.scopes,
    agent_id: row.agent_id,
    resource: row.resource,
    created_at: toIso(row.created_at),
    last_used_at: toIso(row.last_used_at),
  };
}
