import crypto from 'node:crypto';
import express, { Request, RequestHandler, Response, Router } from 'express';
import type { OAuthRequestRow } from '@ams/db';
import { approveAuthorization, denyAuthorization, describeAuthorization, markSignedIn, OAuthRefusal, readAuthorization, signIn } from '@ams/accounts';
import { isApiError } from '@ams/core';
import type { AppContext } from '../../context';
import { oauthDeps } from '../../domain-deps';
import { browserSecret } from './browser-cookie';
import { esc, sendPage } from './pages';
import { oauthUrls } from './oauth-server.router';
import { refuseUnsafeText } from './oauth-input';

const SCOPE_WORDS: Record<string, string> = {
  read: 'read: search and read your memories',
  write: 'write: store and update memories',
  delete: 'delete: delete memories',
};

const str = (v: unknown, max: number): string | undefined => (typeof v === 'string' && v.length <= max ? v : undefined);
const sameToken = (a: string | undefined, b: string) => !!a && a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));

function expired(res: Response): void {
  sendPage(res, 400, 'Request expired', `<h1>This request has expired</h1><p>The link is more than ten minutes old, was already answered, or was opened in another browser. Start again from your assistant.</p>`);
}

const clientName = async (ctx: AppContext, request: OAuthRequestRow): Promise<string> => (await describeAuthorization(oauthDeps(ctx), request)).clientName;

function signInPage(res: Response, status: number, request: OAuthRequestRow, client: string, email = '', problem?: string): void {
  sendPage(
    res,
    status,
    'Sign in',
    `<h1>Sign in to connect ${esc(client)}</h1>
<p class="muted">${esc(client)} asks to use your memory service. Sign in with your account's email and password first.</p>
${problem ? `<p class="error" role="alert">${esc(problem)}</p>` : ''}
<form method="post" action="/oauth/sign-in">
<input type="hidden" name="request" value="${esc(request.id)}"><input type="hidden" name="csrf" value="${esc(request.csrf_token)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(email)}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>`,
  );
}

async function consentPage(ctx: AppContext, res: Response, status: number, request: OAuthRequestRow, problem?: string): Promise<void> {
  const { clientName: client, agents } = await describeAuthorization(oauthDeps(ctx), request);
  const redirect = new URL(request.redirect_uri);
  const scopes = request.scopes
    .map((s) => `<label><input type="checkbox" name="scopes" value="${esc(s)}" checked> ${esc(SCOPE_WORDS[s] ?? s)}</label>`)
    .join('');
  const options = agents.map((a) => `<option value="${esc(a.id)}">${esc(a.name)}</option>`).join('');
  sendPage(
    res,
    status,
    'Allow access',
    `<h1>Allow ${esc(client)} to use your memories?</h1>
${problem ? `<p class="error" role="alert">${esc(problem)}</p>` : ''}
<p>Once you allow it, you will be sent back to <strong>${esc(redirect.host)}</strong>.</p>
<form method="post" action="/oauth/consent">
<input type="hidden" name="request" value="${esc(request.id)}"><input type="hidden" name="csrf" value="${esc(request.csrf_token)}">
<fieldset><legend>It asks to</legend>${scopes}</fieldset>
<label for="agent">Limit it to one agent (optional)</label>
<select id="agent" name="agent_id"><option value="">Every agent of the account</option>${options}</select>
<p class="muted">You can see and revoke this connection later (GET and DELETE /v1/oauth/grants).</p>
<div class="actions"><button type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
</form>`,
    [redirect.origin],
  );
}

/**
 * The sign-in and consent pages an MCP host's user sees between /authorize and the host's
 * redirect URI: server-rendered forms, each bound to the browser that began the request (cookie)
 * and carrying the request's CSRF token.
 */
export function oauthPagesRouter(ctx: AppContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  const deps = () => oauthDeps(ctx);
  const { issuer } = oauthUrls(ctx.config.oauth.publicUrl!);
  router.use('/oauth', form, refuseUnsafeText);

  /** The request the form or link names, for this browser (and, on a POST, with its CSRF token). */
  const load = async (req: Request, res: Response): Promise<OAuthRequestRow | undefined> => {
    const source = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown>;
    const request = await readAuthorization(deps(), str(source.request, 64) ?? '', browserSecret(req));
    if (!request) {
      expired(res);
      return undefined;
    }
    if (req.method === 'POST' && !sameToken(str(source.csrf, 100), request.csrf_token)) {
      sendPage(res, 403, 'Refused', '<h1>Refused</h1><p>This form did not come from this page. Start again from your assistant.</p>');
      return undefined;
    }
    return request;
  };

  const page = (handler: (req: Request, res: Response) => Promise<void>): RequestHandler => (req, res, next) => handler(req, res).catch(next);

  router.get(
    '/oauth/sign-in',
    page(async (req, res) => {
      const request = await load(req, res);
      if (!request) return;
      if (request.account_id) return res.redirect(303, `/oauth/consent?request=${request.id}`);
      signInPage(res, 200, request, await clientName(ctx, request));
    }),
  );

  router.post(
    '/oauth/sign-in',
    form,
    page(async (req, res) => {
      const request = await load(req, res);
      if (!request) return;
      const body = req.body as Record<string, unknown>;
      const email = str(body.email, 254)?.trim() ?? '';
      const password = str(body.password, 1024) ?? '';
      const client = await clientName(ctx, request);
      if (!email || !password) return signInPage(res, 400, request, client, email, 'Enter your email and password.');
      const result = await signIn(deps(), { email, password, address: req.ip ?? 'unknown' });
      if ('failure' in result) {
        if (result.failure === 'throttled') {
          res.set('Retry-After', String(result.retryAfterSeconds));
          return signInPage(res, 429, request, client, email, `Too many attempts. Try again in ${result.retryAfterSeconds} s.`);
        }
        return signInPage(res, 401, request, client, email, 'That email and password do not match an account.');
      }
      await markSignedIn(deps(), request, result.accountId);
      res.redirect(303, `/oauth/consent?request=${request.id}`);
    }),
  );

  router.get(
    '/oauth/consent',
    page(async (req, res) => {
      const request = await load(req, res);
      if (!request) return;
      if (!request.account_id) return res.redirect(303, `/oauth/sign-in?request=${request.id}`);
      await consentPage(ctx, res, 200, request);
    }),
  );

  router.post(
    '/oauth/consent',
    form,
    page(async (req, res) => {
      const request = await load(req, res);
      if (!request) return;
      if (!request.account_id) return res.redirect(303, `/oauth/sign-in?request=${request.id}`);
      const body = req.body as Record<string, unknown>;
      if (body.decision === 'deny') return res.redirect(303, await denyAuthorization(deps(), request, issuer.href));
      const scopes = ([] as unknown[]).concat(body.scopes ?? []).filter((s): s is string => typeof s === 'string');
      const agent = str(body.agent_id, 64) ?? '';
      if (agent && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(agent)) return consentPage(ctx, res, 400, request, 'Choose an agent from the list.');
      try {
        res.redirect(303, await approveAuthorization(deps(), request, { scopes, agentId: agent || null }, issuer.href));
      } catch (err) {
        if (err instanceof OAuthRefusal) return expired(res);
        if (isApiError(err)) return consentPage(ctx, res, err.status, request, err.status === 404 ? 'That agent no longer exists.' : 'Keep at least one of the scopes asked.');
        throw err;
      }
    }),
  );
  return router;
}
