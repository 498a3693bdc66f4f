import express, { RequestHandler, Router } from 'express';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { findOAuthClient, GRANTABLE_SCOPES, hashSecret } from '@ams/accounts';
import type { AppContext, AuthContext } from '../../context';
import { oauthDeps } from '../../domain-deps';
import { externalVerifier } from '../../lib/external-issuer';
import { refuseUnsafeText } from './oauth-input';
import { OAuthProvider } from './oauth-provider';

const RESOURCE_NAME = 'Agent Memory Service';

/** The URLs the OAuth endpoints and /mcp's challenge name. */
export function oauthUrls(publicUrl: string) {
  const resource = new URL(`${publicUrl}/mcp`);
  return { issuer: new URL(publicUrl), resource, resourceMetadata: getOAuthProtectedResourceMetadataUrl(resource) };
}

/**
 * Redirect URIs match the registered ones character for character: the SDK's check lets a loopback
 * URI's port differ (RFC 8252), which a client that registered a port does not need.
 */
function exactRedirectUri(ctx: AppContext): RequestHandler {
  return async (req, res, next) => {
    const params = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown> | undefined;
    const clientId = params?.client_id;
    const redirectUri = params?.redirect_uri;
    if (typeof clientId !== 'string' || typeof redirectUri !== 'string') return next();
    const client = await findOAuthClient(oauthDeps(ctx), clientId);
    const registered = client?.metadata.redirect_uris;
    if (client && Array.isArray(registered) && !registered.includes(redirectUri)) {
      res.status(400).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: 'Unregistered redirect_uri' });
      return;
    }
    next();
  };
}

/** Secrets are stored hashed: the presented one is hashed so the SDK compares hash with hash. */
const hashPresentedSecret: RequestHandler = (req, _res, next) => {
  const body = req.body as Record<string, unknown> | undefined;
  if (body && typeof body.client_secret === 'string') body.client_secret = hashSecret(body.client_secret);
  next();
};

/**
 * The built-in authorization server (RFC 8414 metadata, /authorize, /token, /register, /revoke)
 * and the protected resource metadata of /mcp (RFC 9728), from the MCP SDK's auth router over our
 * provider. Its own rate limits are off: the API's limiters (per address here) already count these.
 */
export function oauthServerRouter(ctx: AppContext, registerLimiter: RequestHandler): Router {
  const urls = oauthUrls(ctx.config.oauth.publicUrl!);
  const provider = new OAuthProvider(ctx);
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  router.use('/authorize', form, refuseUnsafeText, exactRedirectUri(ctx));
  router.use(['/token', '/revoke'], form, refuseUnsafeText, hashPresentedSecret);
  router.post('/register', registerLimiter, express.json({ limit: '100kb' }), refuseUnsafeText);
  router.use(
    mcpAuthRouter({
      provider,
      issuerUrl: urls.issuer,
      resourceServerUrl: urls.resource,
      scopesSupported: [...GRANTABLE_SCOPES],
      resourceName: RESOURCE_NAME,
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
    }),
  );
  // Also at the root: clients that look there before trying the resource's path.
  router.use('/.well-known/oauth-protected-resource', protectedResource(urls.resource, urls.issuer.href));
  return router;
}

const protectedResource = (resource: URL, authorizationServer: string) =>
  metadataHandler({ resource: resource.href, authorization_servers: [authorizationServer], scopes_supported: [...GRANTABLE_SCOPES], resource_name: RESOURCE_NAME });

/** With an external identity provider (OAUTH_ISSUER): only the protected resource metadata, naming that provider. */
export function externalResourceRouter(ctx: AppContext): Router {
  const urls = oauthUrls(ctx.config.oauth.publicUrl!);
  const metadata = protectedResource(urls.resource, ctx.config.oauth.external!.issuer);
  const router = Router();
  router.use(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'], metadata);
  return router;
}

/**
 * On /mcp, a caller without valid credentials that is not presenting an API key gets the SDK's
 * bearer challenge: 401 with `WWW-Authenticate: Bearer ... resource_metadata="..."`, where an MCP
 * host starts its OAuth discovery. API keys (valid or not) go on exactly as elsewhere.
 */
export function mcpBearerChallenge(ctx: AppContext): RequestHandler {
  const urls = oauthUrls(ctx.config.oauth.publicUrl!);
  const challenge = ctx.config.oauth.external
    ? requireBearerAuth({ verifier: externalVerifier(ctx), resourceMetadataUrl: urls.resourceMetadata })
    : requireBearerAuth({ verifier: new OAuthProvider(ctx), resourceMetadataUrl: urls.resourceMetadata, expectedResource: urls.resource });
  return (req, res, next) => {
    const presentsKey = !!req.get('x-api-key') || /^Bearer\s+mem_/i.test(req.get('authorization') ?? '');
    if (req.auth || presentsKey) return next();
    void challenge(req, res, () => {
      // Valid by now (it was not a moment ago, in identifyCaller): take our context from the SDK's.
      req.auth = (req.auth as unknown as AuthInfo).extra!.auth as AuthContext;
      next();
    });
  };
}
