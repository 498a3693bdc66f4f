import supertest from 'supertest';
import {
  authorizeOverHttp,
  bearer,
  createTestApp,
  pkcePair,
  REDIRECT_URI,
  registerOAuthClient,
  registerWithPassword,
  tokenRequest,
  type PasswordAccount,
  type TestApp,
} from '@ams/testing';

/**
 * The built-in OAuth authorization server's refusals, each for its reason, over plain HTTP (the
 * browser test drives the same pages in chromium, with the MCP SDK's client).
 */
const PUBLIC_URL = 'http://127.0.0.1:8089';
const RESOURCE = `${PUBLIC_URL}/mcp`;

let t: TestApp;
let a: PasswordAccount;
let b: PasswordAccount;
let clientId: string;

beforeAll(async () => {
  // Every sign-in here comes from one address: its budget is the limiter test's own business.
  t = await createTestApp({ OAUTH_PUBLIC_URL: PUBLIC_URL, OAUTH_SIGNIN_ATTEMPTS_PER_ACCOUNT: '5', OAUTH_SIGNIN_LOCKOUT_SECONDS: '3', OAUTH_SIGNIN_ATTEMPTS_PER_ADDRESS: '100000' });
  [a, b] = await Promise.all([registerWithPassword(t.app), registerWithPassword(t.app)]);
  clientId = await registerOAuthClient(t.app);
});
afterAll(() => t.close());

/** A grant's first tokens for `account`, through sign-in and consent. */
async function tokensFor(account: PasswordAccount, scopes = ['read', 'write']) {
  const { verifier, challenge } = pkcePair();
  const { code } = await authorizeOverHttp(t.app, { clientId, challenge, email: account.email, password: account.password, scopes });
  const res = await tokenRequest(t.app, { grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT_URI, resource: RESOURCE });
  expect(res.status).toBe(200);
  return res.body as { access_token: string; refresh_token: string; scope: string; expires_in: number };
}

let rpcId = 0;
const mcp = (app: TestApp['app'], token: string, name: string, args: Record<string, unknown>) =>
  supertest(app)
    .post('/mcp')
    .set(bearer(token))
    .set('Accept', 'application/json, text/event-stream')
    .send({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } });

const authorizeQuery = (extra: Record<string, string>) => ({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: REDIRECT_URI,
  code_challenge: pkcePair().challenge,
  code_challenge_method: 'S256',
  state: 's1',
  ...extra,
});

/** A fresh authorization request on `app` as its browser holds it: the cookie, the sign-in form's fields, and a way to post that form. */
async function signInForm(app: TestApp['app']) {
  const start = await supertest(app).get('/authorize').query(authorizeQuery({}));
  const cookie = (start.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
  const page = await supertest(app).get(start.headers.location!).set('Cookie', cookie);
  const form = { request: page.text.match(/name="request" value="([^"]*)"/)![1]!, csrf: page.text.match(/name="csrf" value="([^"]*)"/)![1]! };
  const attempt = (email: string, password: string, from?: string) => {
    const req = supertest(app).post('/oauth/sign-in').set('Cookie', cookie).type('form');
    return (from ? req.set('X-Forwarded-For', from) : req).send({ ...form, email, password });
  };
  return { cookie, form, attempt };
}

describe('discovery', () => {
  it('answers /mcp without credentials with the bearer challenge naming the resource metadata', async () => {
    const res = await supertest(t.app).post('/mcp').send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(res.headers['www-authenticate']).toContain(`resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('publishes the protected resource (RFC 9728) and the authorization server (RFC 8414): S256 only', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const prm = await supertest(t.app).get(path);
      expect(prm.body).toMatchObject({ resource: RESOURCE, authorization_servers: [`${PUBLIC_URL}/`], scopes_supported: ['read', 'write', 'delete'] });
    }
    const as = await supertest(t.app).get('/.well-known/oauth-authorization-server');
    expect(as.body).toMatchObject({
      issuer: `${PUBLIC_URL}/`,
      authorization_endpoint: `${PUBLIC_URL}/authorize`,
      token_endpoint: `${PUBLIC_URL}/token`,
      registration_endpoint: `${PUBLIC_URL}/register`,
      revocation_endpoint: `${PUBLIC_URL}/revoke`,
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('keeps API keys on /mcp unchanged: a valid key works, an invalid one gets the API error', async () => {
    const ok = await mcp(t.app, a.key, 'memory_search', { query: 'anything' });
    expect(ok.status).toBe(200);
    const bad = await mcp(t.app, 'mem_not_a_key', 'memory_search', { query: 'x' });
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ type: 'unauthorized', message: 'Invalid API key' });
  });

  it('does not take an OAuth token anywhere but /mcp', async () => {
    const { access_token } = await tokensFor(a);
    const res = await supertest(t.app).get('/v1/memories').set(bearer(access_token));
    expect(res.status).toBe(401);
  });
});

describe('client registration', () => {
  it('refuses a redirect URI a code could leak from: plain http beyond this machine', async () => {
    const res = await supertest(t.app)
      .post('/register')
      .send({ client_name: 'leaky', redirect_uris: ['http://attacker.example/cb'], token_endpoint_auth_method: 'none' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
  });

  it('refuses text PostgreSQL cannot store (NUL, unpaired surrogates) on every endpoint and page with 400, storing nothing', async () => {
    const clients = async () => Number((await t.ctx.db.knex('oauth_clients').count({ n: '*' }))[0]!.n);
    const before = await clients();
    const cases = [
      supertest(t.app).post('/register').send({ client_name: 'a\u0000b', redirect_uris: [REDIRECT_URI] }),
      supertest(t.app).post('/register').send({ client_name: 'a\ud800b', redirect_uris: [REDIRECT_URI] }),
      supertest(t.app).post('/register').send({ client_name: 'fine', redirect_uris: [`${REDIRECT_URI}\u0000`] }),
      supertest(t.app).post('/token').type('form').send({ grant_type: 'authorization_code', client_id: `${clientId}\u0000`, code: 'x' }),
      // A form carries UTF-8, where a lone surrogate cannot be written: only JSON's escapes can send one.
      supertest(t.app).post('/revoke').type('form').send({ client_id: clientId, token: 'a\u0000' }),
      supertest(t.app).get(`/authorize?client_id=${clientId}&state=%00`),
      supertest(t.app).get('/oauth/sign-in?request=%00'),
      supertest(t.app).post('/oauth/sign-in').type('form').send({ request: '00000000-0000-4000-8000-000000000000', email: 'a\u0000@example.com', password: 'x' }),
    ];
    for (const res of await Promise.all(cases)) {
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_request' });
      expect(res.body.error_description).toMatch(/must not contain (NUL characters|unpaired UTF-16 surrogates)$/);
    }
    expect(await clients()).toBe(before);
    // A request id that is no UUID is an expired request, not a database error.
    expect((await supertest(t.app).get(`/oauth/sign-in?request=${'-'.repeat(36)}`)).status).toBe(400);
  });

  it('keeps a confidential client’s secret as a hash and checks it at the token endpoint', async () => {
    const reg = await supertest(t.app).post('/register').send({ client_name: 'confidential', redirect_uris: ['https://host.example/cb'], token_endpoint_auth_method: 'client_secret_post' });
    expect(reg.status).toBe(201);
    const { client_id, client_secret } = reg.body as { client_id: string; client_secret: string };
    const row = await t.ctx.db.knex('oauth_clients').where({ id: client_id }).first();
    expect(row.secret_hash).not.toContain(client_secret);
    expect(JSON.stringify(row.metadata)).not.toContain(client_secret);
    const wrong = await tokenRequest(t.app, { grant_type: 'refresh_token', client_id, client_secret: 'guess', refresh_token: 'mrt_x' });
    expect(wrong.body.error).toBe('invalid_client');
    const right = await tokenRequest(t.app, { grant_type: 'refresh_token', client_id, client_secret, refresh_token: 'mrt_x' });
    expect(right.body.error).toBe('invalid_grant');
  });
});

describe('authorization requests', () => {
  it('refuses a request without PKCE, sending the error to the client', async () => {
    const query: Record<string, string> = authorizeQuery({});
    delete query.code_challenge;
    delete query.code_challenge_method;
    const res = await supertest(t.app).get('/authorize').query(query);
    expect(res.status).toBe(302);
    const to = new URL(res.headers.location!);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT_URI);
    expect(to.searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses the plain PKCE method', async () => {
    const res = await supertest(t.app).get('/authorize').query(authorizeQuery({ code_challenge_method: 'plain' }));
    expect(res.status).toBe(302);
    expect(new URL(res.headers.location!).searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses a redirect URI that differs from the registered one by a character, without redirecting', async () => {
    for (const redirect of [`${REDIRECT_URI}x`, REDIRECT_URI.replace(':9/', ':10/'), REDIRECT_URI.toUpperCase()]) {
      const res = await supertest(t.app).get('/authorize').query(authorizeQuery({ redirect_uri: redirect }));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.headers.location).toBeUndefined();
    }
  });

  it('refuses a resource other than this server’s /mcp', async () => {
    const res = await supertest(t.app).get('/authorize').query(authorizeQuery({ resource: 'https://elsewhere.example/mcp' }));
    expect(new URL(res.headers.location!).searchParams.get('error')).toBe('invalid_target');
  });

  it('serves the pages unframeable and uncached, and refuses a form without its CSRF token or from another browser', async () => {
    const start = await supertest(t.app).get('/authorize').query(authorizeQuery({}));
    expect(start.status).toBe(303);
    const cookie = (start.headers['set-cookie'] as unknown as string[])[0]!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const page = await supertest(t.app).get(start.headers.location!).set('Cookie', cookie.split(';')[0]!);
    expect(page.status).toBe(200);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
    const requestId = new URL(start.headers.location!, PUBLIC_URL).searchParams.get('request')!;
    const noCsrf = await supertest(t.app).post('/oauth/sign-in').set('Cookie', cookie.split(';')[0]!).type('form').send({ request: requestId, email: a.email, password: a.password });
    expect(noCsrf.status).toBe(403);
    const csrf = page.text.match(/name="csrf" value="([^"]*)"/)![1]!;
    const otherBrowser = await supertest(t.app).post('/oauth/sign-in').type('form').send({ request: requestId, csrf, email: a.email, password: a.password });
    expect(otherBrowser.status).toBe(400);
  });
});

describe('consent', () => {
  it('sends a denial back to the client as access_denied, and the request cannot be answered again', async () => {
    const { cookie, form, attempt } = await signInForm(t.app);
    // The consent page before signing in sends the browser to sign in.
    const early = await supertest(t.app).get(`/oauth/consent?request=${form.request}`).set('Cookie', cookie);
    expect(early.headers.location).toBe(`/oauth/sign-in?request=${form.request}`);
    expect((await attempt(a.email, a.password)).status).toBe(303);
    const denied = await supertest(t.app).post('/oauth/consent').set('Cookie', cookie).type('form').send({ ...form, decision: 'deny' });
    expect(denied.status).toBe(303);
    const to = new URL(denied.headers.location!);
    expect({ error: to.searchParams.get('error'), state: to.searchParams.get('state'), code: to.searchParams.get('code') }).toEqual({ error: 'access_denied', state: 's1', code: null });
    const again = await supertest(t.app).post('/oauth/consent').set('Cookie', cookie).type('form').send({ ...form, decision: 'approve', scopes: 'read' });
    expect(again.status).toBe(400);
  });
});

describe('codes and tokens', () => {
  it('refuses a code used twice and revokes the tokens the first use issued', async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await authorizeOverHttp(t.app, { clientId, challenge, email: a.email, password: a.password });
    const form = { grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT_URI };
    const first = await tokenRequest(t.app, form);
    expect(first.status).toBe(200);
    expect((await mcp(t.app, first.body.access_token, 'memory_search', { query: 'x' })).status).toBe(200);
    const second = await tokenRequest(t.app, form);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect((await mcp(t.app, first.body.access_token, 'memory_search', { query: 'x' })).status).toBe(401);
    expect((await tokenRequest(t.app, { grant_type: 'refresh_token', client_id: clientId, refresh_token: first.body.refresh_token })).status).toBe(400);
  });

  it('refuses a code with a wrong verifier', async () => {
    const { challenge } = pkcePair();
    const { code } = await authorizeOverHttp(t.app, { clientId, challenge, email: a.email, password: a.password });
    const res = await tokenRequest(t.app, { grant_type: 'authorization_code', client_id: clientId, code, code_verifier: pkcePair().verifier, redirect_uri: REDIRECT_URI });
    expect(res.body.error).toBe('invalid_grant');
  });

  it('refuses a token issued for another resource (another server sharing the database) with 401', async () => {
    const other = await createTestApp({ OAUTH_PUBLIC_URL: 'http://127.0.0.1:8090' }, { db: t.ctx.db });
    try {
      const { access_token } = await tokensFor(a);
      expect((await mcp(t.app, access_token, 'memory_search', { query: 'x' })).status).toBe(200);
      const res = await mcp(other.app, access_token, 'memory_search', { query: 'x' });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    } finally {
      await other.close();
    }
  });

  it('a read-only grant cannot store', async () => {
    const { access_token, scope } = await tokensFor(a, ['read']);
    expect(scope).toBe('read');
    const res = await mcp(t.app, access_token, 'memory_store', { content: 'should not be stored', agent_id: 'connector' });
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.structuredContent).toMatchObject({ code: 403, message: 'Insufficient scope. Required: write' });
  });

  it("account B's token never sees account A's memories", async () => {
    const tokA = (await tokensFor(a)).access_token;
    const tokB = (await tokensFor(b)).access_token;
    const stored = await mcp(t.app, tokA, 'memory_store', { content: 'the secret harbour of account A is at pier 39', agent_id: 'connector' });
    expect(stored.body.result).toMatchObject({ structuredContent: { object: 'memory' } });
    const id = stored.body.result.structuredContent.id as string;
    const search = await mcp(t.app, tokB, 'memory_search', { query: 'secret harbour pier 39' });
    expect(JSON.stringify(search.body.result.structuredContent)).not.toContain(id);
    const get = await mcp(t.app, tokB, 'memory_get', { id });
    expect(get.body.result.structuredContent).toMatchObject({ code: 404 });
    const own = await mcp(t.app, tokA, 'memory_get', { id });
    expect(own.body.result.structuredContent).toMatchObject({ id });
  });

  it('refuses a tampered or expired access token with 401', async () => {
    const { access_token } = await tokensFor(a);
    const last = access_token.at(-1) === 'A' ? 'B' : 'A';
    const tampered = await mcp(t.app, access_token.slice(0, -1) + last, 'memory_search', { query: 'x' });
    expect(tampered.status).toBe(401);
    expect(tampered.headers['www-authenticate']).toContain('resource_metadata=');
    // Expired: its expiry moved into the past, straight in the database.
    const { hashSecret } = await import('@ams/accounts');
    await t.ctx.db.knex('oauth_tokens').where({ token_hash: hashSecret(access_token) }).update({ expires_at: new Date(Date.now() - 1000) });
    const expired = await mcp(t.app, access_token, 'memory_search', { query: 'x' });
    expect(expired.status).toBe(401);
    expect(expired.body.error_description).toBe('Access token expired');
  });

  it('rotates refresh tokens; a rotated one presented again revokes the grant', async () => {
    const first = await tokensFor(a);
    const refreshed = await tokenRequest(t.app, { grant_type: 'refresh_token', client_id: clientId, refresh_token: first.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
    expect((await mcp(t.app, refreshed.body.access_token, 'memory_search', { query: 'x' })).status).toBe(200);
    const replay = await tokenRequest(t.app, { grant_type: 'refresh_token', client_id: clientId, refresh_token: first.refresh_token });
    expect(replay.body.error).toBe('invalid_grant');
    expect((await mcp(t.app, refreshed.body.access_token, 'memory_search', { query: 'x' })).status).toBe(401);
  });

  it('revokes tokens (RFC 7009) and grants (DELETE /v1/oauth/grants/{id}) from the next request', async () => {
    const viaRevoke = await tokensFor(a);
    expect((await supertest(t.app).post('/revoke').type('form').send({ client_id: clientId, token: viaRevoke.access_token })).status).toBe(200);
    expect((await mcp(t.app, viaRevoke.access_token, 'memory_search', { query: 'x' })).status).toBe(401);

    const fresh = await tokensFor(b);
    await mcp(t.app, fresh.access_token, 'memory_search', { query: 'x' });
    const list = await supertest(t.app).get('/v1/oauth/grants').set(bearer(b.key));
    expect(list.status).toBe(200);
    const grant = list.body.data.find((g: { last_used_at: string | null }) => g.last_used_at !== null);
    expect(grant).toMatchObject({ object: 'oauth_grant', client_id: clientId, client_name: 'Test connector', redirect_hosts: ['127.0.0.1:9'], scopes: ['read', 'write'] });
    expect((await supertest(t.app).get('/v1/oauth/grants').set(bearer(a.key))).body.data.map((g: { id: string }) => g.id)).not.toContain(grant.id);
    expect((await supertest(t.app).delete(`/v1/oauth/grants/${grant.id}`).set(bearer(a.key))).status).toBe(404);
    expect((await supertest(t.app).delete(`/v1/oauth/grants/${grant.id}`).set(bearer(b.key))).status).toBe(204);
    const after = await mcp(t.app, fresh.access_token, 'memory_search', { query: 'x' });
    expect(after.status).toBe(401);
    expect(after.body.error_description).toBe('Access token revoked');
  });
});

describe('grants limited to one agent, and events', () => {
  it('a grant limited to an agent writes to it and reads only its memories', async () => {
    const agent = await supertest(t.app).post('/v1/agents').set(bearer(a.key)).send({ name: 'only-this-one' });
    expect(agent.status).toBe(201);
    await supertest(t.app).post('/v1/memories').set(bearer(a.key)).send({ content: 'a memory of another agent about lighthouses', agent_id: 'someone-else' });
    const { verifier, challenge } = pkcePair();
    const { code } = await authorizeOverHttp(t.app, { clientId, challenge, email: a.email, password: a.password, agentId: agent.body.id });
    const tokens = await tokenRequest(t.app, { grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT_URI });
    const stored = await mcp(t.app, tokens.body.access_token, 'memory_store', { content: 'lighthouses seen by the bound agent' });
    expect(stored.body.result.structuredContent).toMatchObject({ agent_id: agent.body.id });
    const found = await mcp(t.app, tokens.body.access_token, 'memory_search', { query: 'lighthouses' });
    const text = JSON.stringify(found.body.result.structuredContent);
    expect(text).toContain('bound agent');
    expect(text).not.toContain('another agent');
  });

  it('counts each event in the metrics', async () => {
    const metrics = await t.ctx.metrics!.registry.getSingleMetricAsString('ams_oauth_events_total');
    for (const event of ['client_registered', 'sign_in_succeeded', 'consent_approved', 'code_exchanged', 'code_replayed', 'token_refreshed', 'token_revoked', 'grant_revoked', 'token_refused']) {
      expect(metrics).toMatch(new RegExp(`ams_oauth_events_total\\{event="${event}"\\} [1-9]`));
    }
  });
});

describe('sign-in limiter', () => {
  it('holds under a burst: past the per-account budget attempts are refused without checking the password', async () => {
    const victim = await registerWithPassword(t.app);
    const held = await createTestApp({ OAUTH_PUBLIC_URL: PUBLIC_URL, OAUTH_SIGNIN_ATTEMPTS_PER_ACCOUNT: '5', OAUTH_SIGNIN_LOCKOUT_SECONDS: '120', OAUTH_SIGNIN_ATTEMPTS_PER_ADDRESS: '100000' }, { db: t.ctx.db });
    try {
      const { attempt } = await signInForm(held.app);
      const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => attempt(victim.email, `wrong ${i}`)));
      const statuses = burst.map((r) => r.status);
      expect(statuses.filter((s) => s === 401)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(15);
      expect(Number(burst.find((r) => r.status === 429)!.headers['retry-after'])).toBeGreaterThan(60);
      // Even the right password waits out the window.
      expect((await attempt(victim.email, victim.password)).status).toBe(429);
    } finally {
      await held.close();
    }
  });

  it('locks an account only briefly: after the window its owner signs in', async () => {
    const victim = await registerWithPassword(t.app);
    const { attempt } = await signInForm(t.app);
    expect((await Promise.all(Array.from({ length: 6 }, () => attempt(victim.email, 'wrong')))).map((r) => r.status).sort()).toEqual([401, 401, 401, 401, 401, 429]);
    await new Promise((r) => setTimeout(r, 3_100));
    expect((await attempt(victim.email, victim.password)).status).toBe(303);
  });

  it('counts attempts per address too: one address cannot try account after account', async () => {
    const proxied = await createTestApp(
      { OAUTH_PUBLIC_URL: PUBLIC_URL, TRUST_PROXY: 'true', OAUTH_SIGNIN_ATTEMPTS_PER_ADDRESS: '3', OAUTH_SIGNIN_ADDRESS_WINDOW_SECONDS: '60' },
      { db: t.ctx.db },
    );
    try {
      const address = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
      const { attempt } = await signInForm(proxied.app);
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await attempt(`nobody${i}@example.com`, 'wrong', address)).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      // Another address is not held back by this one.
      expect((await attempt(a.email, 'wrong', '198.51.100.7')).status).toBe(401);
    } finally {
      await proxied.close();
    }
  });
});
