import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { InvalidTokenError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { ExternalIssuer } from '@ams/accounts';
import type { AppContext } from '../context';

const issuers = new WeakMap<AppContext, ExternalIssuer>();

/** The app's one checker of the external provider's tokens (its discovery and keys fetched once). */
export function externalIssuer(ctx: AppContext): ExternalIssuer | undefined {
  const settings = ctx.config.oauth.external;
  if (!settings) return undefined;
  let issuer = issuers.get(ctx);
  if (!issuer) issuers.set(ctx, (issuer = new ExternalIssuer(settings)));
  return issuer;
}

/** The same check as the SDK's bearer middleware asks it. */
export function externalVerifier(ctx: AppContext): OAuthTokenVerifier {
  const issuer = externalIssuer(ctx)!;
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const result = await issuer.check({ db: ctx.db.knex }, token).catch((err: Error) => {
        ctx.logger.error('oauth issuer unreachable', { issuer: ctx.config.oauth.external!.issuer, error: err.message });
        throw new ServerError('The identity provider could not be reached');
      });
      if ('failure' in result) throw new InvalidTokenError(result.failure === 'invalid' ? 'Invalid access token' : `Access token ${result.failure}`);
      // The audience was checked by jose; it need not be a URL.
      return { token, clientId: result.clientId, scopes: result.auth.scopes, expiresAt: result.expiresAt, extra: { auth: result.auth } };
    },
  };
}
