import crypto from 'node:crypto';
import type { Express } from 'express';
import supertest from 'supertest';
import { uniqueEmail } from './test-app';

export interface PasswordAccount {
  accountId: string;
  email: string;
  password: string;
  /** The full-scope key registration returned. */
  key: string;
}

/** An account that can sign in, registered as a person would (POST /v1/auth/register). */
export async function registerWithPassword(app: Express, password = 'correct horse battery staple'): Promise<PasswordAccount> {
  const email = uniqueEmail('oauth');
  const res = await supertest(app).post('/v1/auth/register').send({ email, password });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
  return { accountId: res.body.account_id, email, password, key: res.body.api_key };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(32).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** Registers a public client (RFC 7591) with one redirect URI; returns its id. */
export async function registerOAuthClient(app: Express, redirectUri = REDIRECT_URI, name = 'Test connector'): Promise<string> {
  const res = await supertest(app)
    .post('/register')
    .send({ client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] });
  if (res.status !== 201) throw new Error(`registration: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.client_id as string;
}

const hidden = (html: string, name: string) => html.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? '';

/**
 * The browser's part of an authorization over plain HTTP (the browser test drives the same pages
 * in chromium): /authorize, sign-in, consent. Returns the code from the redirect.
 */
export async function authorizeOverHttp(
  app: Express,
  opts: { clientId: string; challenge: string; email: string; password: string; scopes?: string[]; resource?: string; redirectUri?: string; agentId?: string },
): Promise<{ code: string; location: URL }> {
  const http = supertest(app);
  const redirectUri = opts.redirectUri ?? REDIRECT_URI;
  const start = await http.get('/authorize').query({
    response_type: 'code',
    client_id: opts.clientId,
    redirect_uri: redirectUri,
    code_challenge: opts.challenge,
    code_challenge_method: 'S256',
    state: 'st',
    ...(opts.scopes ? { scope: opts.scopes.join(' ') } : {}),
    ...(opts.resource ? { resource: opts.resource } : {}),
  });
  if (start.status !== 303) throw new Error(`authorize: ${start.status} ${start.headers.location ?? JSON.stringify(start.body)}`);
  const cookie = (start.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
  const signInPage = await http.get(start.headers.location!).set('Cookie', cookie);
  const signedIn = await http
    .post('/oauth/sign-in')
    .set('Cookie', cookie)
    .type('form')
    .send({ request: hidden(signInPage.text, 'request'), csrf: hidden(signInPage.text, 'csrf'), email: opts.email, password: opts.password });
  if (signedIn.status !== 303) throw new Error(`sign-in: ${signedIn.status}`);
  const consent = await http.get(signedIn.headers.location!).set('Cookie', cookie);
  const form = new URLSearchParams({ request: hidden(consent.text, 'request'), csrf: hidden(consent.text, 'csrf'), decision: 'approve', agent_id: opts.agentId ?? '' });
  for (const s of opts.scopes ?? ['read', 'write']) form.append('scopes', s);
  const approved = await http.post('/oauth/consent').set('Cookie', cookie).type('form').send(form.toString());
  if (approved.status !== 303) throw new Error(`consent: ${approved.status}`);
  const location = new URL(approved.headers.location!);
  return { code: location.searchParams.get('code') ?? '', location };
}

/** The token endpoint, as a client calls it (form-encoded). */
export const tokenRequest = (app: Express, form: Record<string, string>) => supertest(app).post('/token').type('form').send(form);
