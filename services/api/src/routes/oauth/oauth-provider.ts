import type { Response } from 'express';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  InvalidClientError,
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
  OAuthError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import {
  beginAuthorization,
  challengeForCode,
  checkAccessToken,
  exchangeCode,
  findOAuthClient,
  OAuthRefusal,
  refreshTokens,
  registerOAuthClient,
  revokeToken,
} from '@ams/accounts';
import type { AppContext } from '../../context';
import { oauthDeps } from '../../domain-deps';
import { setBrowserCookie } from './browser-cookie';

/** OAuth 2.1: a code goes to an https redirect URI, or over plain http only to this machine (native hosts). */
function isSafeRedirect(uri: string): boolean {
  const url = new URL(uri);
  return url.protocol === 'https:' || (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname));
}

/** Our refusals as the SDK's OAuth errors, which its endpoints turn into RFC 6749 answers. */
function asOAuthError(err: unknown): unknown {
  if (!(err instanceof OAuthRefusal)) return err;
  const errors: Record<OAuthRefusal['code'], new (message: string) => OAuthError> = {
    invalid_grant: InvalidGrantError,
    invalid_target: InvalidTargetError,
    invalid_scope: InvalidScopeError,
    invalid_request: InvalidRequestError,
    invalid_client: InvalidClientError,
  };
  return new errors[err.code](err.message);
}

async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw asOAuthError(err);
  }
}

/**
 * The SDK's authorization server endpoints over our rules (@ams/accounts) and tables. A client's
 * secret is kept as a hash: the store hands the SDK that hash as `client_secret`, and the token and
 * revocation endpoints hash the presented secret before the SDK compares them (oauth-server.router.ts).
 */
export class OAuthProvider implements OAuthServerProvider {
  readonly clientsStore: OAuthRegisteredClientsStore;

  constructor(private readonly ctx: AppContext) {
    const deps = () => oauthDeps(ctx);
    this.clientsStore = {
      async getClient(clientId: string) {
        const client = await findOAuthClient(deps(), clientId);
        if (!client) return undefined;
        return {
          ...(client.metadata as Omit<OAuthClientInformationFull, 'client_id'>),
          client_id: client.client_id,
          client_secret: client.client_secret_hash,
          client_secret_expires_at: client.client_secret_expires_at,
        } as OAuthClientInformationFull;
      },
      async registerClient(client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>) {
        const full = client as OAuthClientInformationFull;
        const insecure = full.redirect_uris.find((uri) => !isSafeRedirect(uri));
        if (insecure) throw new InvalidClientMetadataError(`redirect_uris: ${insecure} must be https, or http to a loopback address`);
        const { client_secret: secret, client_secret_expires_at: secretExpiresAt, ...metadata } = full;
        await registerOAuthClient(deps(), { clientId: full.client_id, secret, secretExpiresAt, metadata });
        return full;
      },
    };
  }

  private get deps() {
    return oauthDeps(this.ctx);
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const { requestId, browserSecret } = await refusing(() =>
      beginAuthorization(this.deps, {
        clientId: client.client_id,
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        scopes: (params.scopes ?? []).filter(Boolean),
        state: params.state,
        resource: params.resource?.href,
      }),
    );
    setBrowserCookie(res, this.ctx.config.oauth.publicUrl!, browserSecret);
    res.redirect(303, `/oauth/sign-in?request=${requestId}`);
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    return refusing(() => challengeForCode(this.deps, client.client_id, code));
  }

  exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, _verifier?: string, redirectUri?: string, resource?: URL): Promise<OAuthTokens> {
    return refusing(() => exchangeCode(this.deps, { clientId: client.client_id, code, redirectUri, resource: resource?.href }));
  }

  exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    return refusing(() => refreshTokens(this.deps, { clientId: client.client_id, refreshToken, scopes, resource: resource?.href }));
  }

  /** What the SDK's bearer middleware asks: our AuthContext rides in `extra`. */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const result = await checkAccessToken(this.deps, token, this.ctx.logger);
    if ('failure' in result) throw new InvalidTokenError(result.failure === 'invalid' ? 'Invalid access token' : `Access token ${result.failure}`);
    return { token, clientId: result.clientId, scopes: result.auth.scopes, expiresAt: result.expiresAt, resource: new URL(result.resource), extra: { auth: result.auth } };
  }

  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    await revokeToken(this.deps, client.client_id, request.token);
  }
}
