import { ApiError } from '@ams/core';
import { agentsRepository, oauthClientsRepository, oauthCodesRepository, oauthGrantsRepository, oauthRequestsRepository, OAuthRequestRow } from '@ams/db';
import type { OAuthDeps } from './oauth-deps';
import { OAuthRefusal } from './oauth-deps';
import { hashSecret, OAUTH_PREFIX, randomSecret, secretMatches } from './oauth-secrets';

/** The scopes a person can grant a connector: an API key's, without admin (which manages keys and grants). */
export const GRANTABLE_SCOPES = ['read', 'write', 'delete'] as const;
/** What a client that names no scope is offered. */
const DEFAULT_SCOPES = ['read', 'write'];
/** How long a person has between being sent to sign in and answering the consent screen. */
const REQUEST_TTL_MS = 10 * 60_000;
const CODE_TTL_MS = 60_000;

/** The same resource, as RFC 8707 compares them: fragment and one trailing slash aside. */
export function sameResource(a: string, b: string): boolean {
  const plain = (s: string) => s.replace(/#.*$/, '').replace(/\/$/, '');
  return plain(a) === plain(b);
}

/**
 * Records an authorization request (client, redirect URI and PKCE challenge already checked by the
 * endpoint) and returns its id with the browser secret that binds it to the browser that began it.
 */
export async function beginAuthorization(
  deps: OAuthDeps,
  input: { clientId: string; redirectUri: string; codeChallenge: string; scopes: string[]; state?: string; resource?: string },
): Promise<{ requestId: string; browserSecret: string }> {
  if (input.resource !== undefined && !sameResource(input.resource, deps.oauth.resource)) {
    throw new OAuthRefusal('invalid_target', `This server issues tokens only for ${deps.oauth.resource}`);
  }
  const unknown = input.scopes.filter((s) => !(GRANTABLE_SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new OAuthRefusal('invalid_scope', `Unknown scope: ${unknown[0]} (offered: ${GRANTABLE_SCOPES.join(', ')})`);
  const browserSecret = randomSecret(OAUTH_PREFIX.browser);
  const row = await oauthRequestsRepository.insert(deps.db, {
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    code_challenge: input.codeChallenge,
    scopes: input.scopes.length > 0 ? [...new Set(input.scopes)] : DEFAULT_SCOPES,
    state: input.state ?? null,
    resource: deps.oauth.resource,
    browser_hash: hashSecret(browserSecret),
    csrf_token: randomSecret(''),
    expires_at: new Date(Date.now() + REQUEST_TTL_MS),
  });
  deps.event('authorization_started', { client_id: input.clientId, request_id: row.id, scopes: row.scopes });
  return { requestId: row.id, browserSecret };
}

/** The live request, only for the browser that began it. */
export async function readAuthorization(deps: OAuthDeps, requestId: string, browserSecret: string | undefined): Promise<OAuthRequestRow | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(requestId) || !browserSecret) return undefined;
  const row = await oauthRequestsRepository.find(deps.db, requestId);
  return row && secretMatches(browserSecret, row.browser_hash) ? row : undefined;
}

/** What the sign-in and consent pages show: the client's name and, once signed in, the agents a grant may be limited to. */
export async function describeAuthorization(deps: OAuthDeps, request: OAuthRequestRow): Promise<{ clientName: string; agents: Array<{ id: string; name: string }> }> {
  const client = await oauthClientsRepository.find(deps.db, request.client_id);
  const name = client?.metadata.client_name;
  const agents = request.account_id ? (await agentsRepository.list(deps.db, request.account_id, { limit: 100, offset: 0 })).rows : [];
  return {
    clientName: typeof name === 'string' && name.trim() ? name.trim().slice(0, 100) : 'An unnamed client',
    agents: agents.map((a) => ({ id: a.id, name: a.name })),
  };
}

export async function markSignedIn(deps: OAuthDeps, request: OAuthRequestRow, accountId: string): Promise<void> {
  await oauthRequestsRepository.signedIn(deps.db, request.id, accountId);
}

/** Where the browser goes with the answer: the client's redirect URI with the code (or error) and state. */
function answer(request: OAuthRequestRow, params: Record<string, string>, issuer: string): string {
  const url = new URL(request.redirect_uri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (request.state !== null) url.searchParams.set('state', request.state);
  url.searchParams.set('iss', issuer);
  return url.href;
}

/**
 * The person approved: a grant of the scopes they kept (never more than were asked), limited to
 * one agent when they chose one, and a one-use code for it. Returns the URL to send the browser to.
 */
export async function approveAuthorization(
  deps: OAuthDeps,
  request: OAuthRequestRow,
  choice: { scopes: string[]; agentId: string | null },
  issuer: string,
): Promise<string> {
  const accountId = request.account_id;
  if (!accountId) throw ApiError.unauthorized('Sign in first');
  const scopes = request.scopes.filter((s) => choice.scopes.includes(s));
  if (scopes.length === 0) throw ApiError.invalidField('scopes', 'choose at least one of the scopes asked');
  if (choice.agentId && !(await agentsRepository.findLive(deps.db, accountId, choice.agentId))) throw ApiError.notFound('Agent');
  const code = randomSecret(OAUTH_PREFIX.code);
  const grantId = await deps.db.transaction(async (trx) => {
    // Taken in the transaction: of two answers to one request, one makes a grant.
    const taken = await oauthRequestsRepository.take(trx, request.id);
    if (!taken) throw new OAuthRefusal('invalid_request', 'This authorization request has expired or was already answered');
    const grant = await oauthGrantsRepository.insert(trx, { accountId, clientId: request.client_id, scopes, agentId: choice.agentId, resource: request.resource });
    await oauthCodesRepository.insert(trx, {
      code_hash: hashSecret(code),
      account_id: accountId,
      grant_id: grant.id,
      client_id: request.client_id,
      redirect_uri: request.redirect_uri,
      code_challenge: request.code_challenge,
      expires_at: new Date(Date.now() + CODE_TTL_MS),
    });
    return grant.id;
  });
  deps.event('consent_approved', { account_id: accountId, client_id: request.client_id, grant_id: grantId, scopes, agent_id: choice.agentId });
  return answer(request, { code }, issuer);
}

export async function denyAuthorization(deps: OAuthDeps, request: OAuthRequestRow, issuer: string): Promise<string> {
  await oauthRequestsRepository.take(deps.db, request.id);
  deps.event('consent_denied', { account_id: request.account_id, client_id: request.client_id });
  return answer(request, { error: 'access_denied', error_description: 'The person declined' }, issuer);
}
