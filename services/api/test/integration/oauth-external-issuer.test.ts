import http from 'node:http';
import type { AddressInfo } from 'node:net';
import supertest from 'supertest';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { bearer, createTestApp, registerWithPassword, type PasswordAccount, type TestApp } from '@ams/testing';

/**
 * An external OpenID Connect provider instead of the built-in server (OAUTH_ISSUER): a local issuer
 * this file starts (discovery document and JWKS) signs the tokens; /mcp checks them with jose.
 */
const PUBLIC_URL = 'http://127.0.0.1:8091';
const AUDIENCE = `${PUBLIC_URL}/mcp`;

let issuer: http.Server;
let issuerUrl: string;
let key: CryptoKey;
let jwks: JWK[];
let t: TestApp;
let a: PasswordAccount;
let b: PasswordAccount;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  key = pair.privateKey;
  jwks = [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }];
  issuer = http.createServer((req, res) => {
    const body =
      req.url === '/.well-known/openid-configuration' ? { issuer: issuerUrl, jwks_uri: `${issuerUrl}/jwks`, authorization_endpoint: `${issuerUrl}/authorize`, token_endpoint: `${issuerUrl}/token` } : req.url === '/jwks' ? { keys: jwks } : undefined;
    res.writeHead(body ? 200 : 404, { 'Content-Type': 'application/json' }).end(JSON.stringify(body ?? {}));
  });
  issuer.listen(0, '127.0.0.1');
  await new Promise((r) => issuer.once('listening', r));
  issuerUrl = `http://127.0.0.1:${(issuer.address() as AddressInfo).port}`;
  t = await createTestApp({ OAUTH_PUBLIC_URL: PUBLIC_URL, OAUTH_ISSUER: issuerUrl, OAUTH_SCOPES_CLAIM: 'permissions' });
  [a, b] = await Promise.all([registerWithPassword(t.app), registerWithPassword(t.app)]);
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => issuer.close(r));
});

const sign = (claims: Record<string, unknown>, opts: { iss?: string; aud?: string; exp?: string | number; kid?: string; with?: CryptoKey } = {}) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: opts.kid ?? 'k1' })
    .setIssuer(opts.iss ?? issuerUrl)
    .setAudience(opts.aud ?? AUDIENCE)
    .setSubject(String(claims.email ?? 'someone'))
    .setIssuedAt()
    .setExpirationTime(opts.exp ?? '5m')
    .sign(opts.with ?? key);

let rpcId = 0;
const mcp = (token: string, name: string, args: Record<string, unknown>) =>
  supertest(t.app)
    .post('/mcp')
    .set(bearer(token))
    .set('Accept', 'application/json, text/event-stream')
    .send({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } });

it('names the external provider in the protected resource metadata, and runs no server of its own', async () => {
  const prm = await supertest(t.app).get('/.well-known/oauth-protected-resource/mcp');
  expect(prm.body).toMatchObject({ resource: AUDIENCE, authorization_servers: [issuerUrl] });
  // Not served: the paths fall through to the authenticated routes, which know none of them.
  expect((await supertest(t.app).get('/.well-known/oauth-authorization-server')).status).toBe(401);
  expect((await supertest(t.app).post('/register').send({})).status).toBe(401);
  expect((await supertest(t.app).get('/oauth/sign-in')).status).toBe(401);
  const challenge = await supertest(t.app).post('/mcp').send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  expect(challenge.status).toBe(401);
  expect(challenge.headers['www-authenticate']).toContain(`resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp"`);
});

it("maps the token's email claim to the account and its permissions claim to scopes", async () => {
  const token = await sign({ email: a.email, permissions: ['read', 'write', 'admin'] });
  const stored = await mcp(token, 'memory_store', { content: 'stored with a token of the external provider', agent_id: 'ext' });
  expect(stored.body.result.structuredContent).toMatchObject({ object: 'memory' });
  const found = await mcp(token, 'memory_search', { query: 'external provider', agent_id: 'ext' });
  expect(JSON.stringify(found.body.result.structuredContent)).toContain(stored.body.result.structuredContent.id);
  // B's token, from the same provider, sees none of A's memories.
  const other = await mcp(await sign({ email: b.email, permissions: 'read' }), 'memory_get', { id: stored.body.result.structuredContent.id });
  expect(other.body.result.structuredContent).toMatchObject({ code: 404 });
  // admin is never taken from a provider; read only cannot store.
  const readOnly = await mcp(await sign({ email: a.email, permissions: 'read' }), 'memory_store', { content: 'no', agent_id: 'ext' });
  expect(readOnly.body.result.structuredContent).toMatchObject({ code: 403 });
  expect((await supertest(t.app).get('/v1/memories').set(bearer(token))).status).toBe(401);
});

it('refuses, with 401, tokens of another audience, another issuer or key, expired, tampered, or for no account', async () => {
  const stranger = (await generateKeyPair('ES256')).privateKey;
  const refused = [
    await sign({ email: a.email, permissions: 'read' }, { aud: 'https://elsewhere.example/mcp' }),
    await sign({ email: a.email, permissions: 'read' }, { iss: 'https://other-issuer.example' }),
    await sign({ email: a.email, permissions: 'read' }, { with: stranger }),
    await sign({ email: a.email, permissions: 'read' }, { exp: Math.floor(Date.now() / 1000) - 60 }),
    (await sign({ email: a.email, permissions: 'read' })).replace(/\.([^.]*)\./, (_m, body: string) => `.${body.slice(0, -2)}${body.at(-2) === 'A' ? 'B' : 'A'}${body.at(-1)}.`),
    await sign({ email: 'nobody@example.com', permissions: 'read' }),
    await sign({ email: a.email, email_verified: false, permissions: 'read' }),
  ];
  for (const token of refused) {
    const res = await mcp(token, 'memory_search', { query: 'x' });
    expect({ status: res.status, challenge: res.headers['www-authenticate']?.includes('invalid_token') }).toEqual({ status: 401, challenge: true });
  }
  // API keys keep working beside the provider.
  expect((await mcp(a.key, 'memory_search', { query: 'x' })).status).toBe(200);
});
