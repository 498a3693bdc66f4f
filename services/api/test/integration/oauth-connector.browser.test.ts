import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { hashSecret } from '@ams/accounts';
import { createTestApp, freePort, McpToolResult, registerWithPassword, type PasswordAccount, type TestApp } from '@ams/testing';
import { launchChromium, requireChromium, waitForShown } from '@ams/testing/chromium';

/**
 * A remote MCP host connecting as a person would connect it: the MCP SDK's client discovers the
 * server from /mcp's 401, registers itself, sends the person (Debian's chromium) to the sign-in
 * and consent pages, exchanges the code, stores and searches; its token then refreshes, is revoked
 * and is refused. Screenshots of the pages go to test-artifacts/oauth/.
 */
const ARTIFACTS = path.resolve(__dirname, '../../../../test-artifacts/oauth');

jest.setTimeout(90_000);

/** What a host keeps between the steps of its OAuth flow; here, in memory. */
class HostProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  sentTo?: URL;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Browser test connector',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.sentTo = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let t: TestApp;
let server: Server;
let callback: Server;
let publicUrl: string;
let account: PasswordAccount;
let browser: Awaited<ReturnType<typeof launchChromium>>;
const codes: string[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  requireChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  // The console's bundle, as `npm start` would build it (a no-op when up to date): grants are revoked from its operations page.
  execFileSync(process.execPath, [path.resolve(__dirname, '../../../../packages/console/scripts/ensure-built.mjs')], { stdio: 'inherit' });
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  t = await createTestApp({ OAUTH_PUBLIC_URL: publicUrl });
  // Sign-in attempts are counted per address: the security suite's bursts from 127.0.0.1, earlier on
  // this worker's database, must not count against this browser's.
  await t.ctx.db.knex('oauth_sign_in_attempts').del();
  server = t.app.listen(port, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  // The host's redirect URI: takes the code as the host's own page would.
  callback = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://127.0.0.1');
    const code = url.searchParams.get('code');
    if (code) codes.push(code);
    res.writeHead(200, { 'Content-Type': 'text/html' }).end(code ? '<h1>Connected</h1>' : `<h1>Not connected: ${url.searchParams.get('error')}</h1>`);
  });
  callback.listen(0, '127.0.0.1');
  await new Promise((r) => callback.once('listening', r));
  account = await registerWithPassword(t.app, 'a long connector passphrase');
  browser = await launchChromium();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await browser?.close();
  await new Promise((r) => callback?.close(r));
  await new Promise((r) => server?.close(r));
  await t?.close();
});

async function connected(provider: HostProvider): Promise<Client> {
  const client = new Client({ name: 'remote-host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${publicUrl}/mcp`), { authProvider: provider }));
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as McpToolResult;

it('connects through discovery, registration, sign-in and consent; refreshes; is revoked and refused', async () => {
  const redirectUri = `http://127.0.0.1:${(callback.address() as { port: number }).port}/callback`;
  const provider = new HostProvider(redirectUri);

  // 1. No token: the host discovers the server from the 401, registers, and sends the person to /authorize.
  const transport = new StreamableHTTPClientTransport(new URL(`${publicUrl}/mcp`), { authProvider: provider });
  await expect(new Client({ name: 'remote-host', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.client?.client_id).toEqual(expect.any(String));
  expect(provider.sentTo?.href).toMatch(new RegExp(`^${publicUrl}/authorize\\?`));
  expect(provider.sentTo!.searchParams.get('code_challenge_method')).toBe('S256');
  expect(provider.sentTo!.searchParams.get('resource')).toBe(`${publicUrl}/mcp`);

  // 2. The person signs in and consents in the browser.
  const page = await browser.context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(provider.sentTo!.href);
  await waitForShown(page.getByRole('heading', { name: 'Sign in to connect Browser test connector' }), path.join(ARTIFACTS, 'failed-sign-in.png'));
  await page.screenshot({ path: path.join(ARTIFACTS, '01-sign-in.png'), fullPage: true });
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill('not the passphrase');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await waitForShown(page.getByRole('alert'), path.join(ARTIFACTS, 'failed-wrong-password.png'));
  expect(await page.getByRole('alert').innerText()).toBe('That email and password do not match an account.');
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await waitForShown(page.getByRole('heading', { name: 'Allow Browser test connector to use your memories?' }), path.join(ARTIFACTS, 'failed-consent.png'));
  const consent = await page.locator('main').innerText();
  expect(consent).toContain(`sent back to ${new URL(redirectUri).host}`);
  // The host asks for every scope the server offers; the person keeps delete back.
  expect(await page.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => b.getAttribute('value')))).toEqual(['read', 'write', 'delete']);
  await page.screenshot({ path: path.join(ARTIFACTS, '02-consent.png'), fullPage: true });
  await page.getByLabel('delete: delete memories').uncheck();
  await page.getByRole('button', { name: 'Allow' }).click();
  await waitForShown(page.getByRole('heading', { name: 'Connected' }), path.join(ARTIFACTS, 'failed-callback.png'));
  await page.close();
  expect(codes).toHaveLength(1);

  // 3. The host exchanges the code and works.
  await transport.finishAuth(codes[0]!);
  const first = provider.saved!;
  expect(first.scope).toBe('read write');
  const client = await connected(provider);
  const stored = await call(client, 'memory_store', { content: 'Connected from a remote host through OAuth', agent_id: 'remote-host' });
  expect(stored.isError).toBeFalsy();
  const found = await call(client, 'memory_search', { query: 'remote host OAuth', agent_id: 'remote-host' });
  expect(JSON.stringify(found.structuredContent)).toContain(String(stored.structuredContent!.id));
  const grants = await fetch(`${publicUrl}/v1/oauth/grants`, { headers: { Authorization: `Bearer ${account.key}` } }).then((r) => r.json() as Promise<{ data: Array<{ id: string }> }>);
  expect(grants.data).toEqual([expect.objectContaining({ client_name: 'Browser test connector', scopes: ['read', 'write'], last_used_at: expect.any(String) })]);

  // 4. The access token expires (moved into the past in the database): the host refreshes on its own, with a new refresh token.
  await t.ctx.db.knex('oauth_tokens').where({ token_hash: hashSecret(first.access_token) }).update({ expires_at: new Date(Date.now() - 1000) });
  const again = await call(client, 'memory_search', { query: 'remote host OAuth', agent_id: 'remote-host' });
  expect(again.isError).toBeFalsy();
  expect(provider.saved!.access_token).not.toBe(first.access_token);
  expect(provider.saved!.refresh_token).not.toBe(first.refresh_token);

  // 5. The account revokes the grant on the console's operations page: the next request is refused, and the host cannot refresh its way back.
  const consolePage = await browser.context.newPage();
  consolePage.setDefaultTimeout(15_000);
  await consolePage.goto(`${publicUrl}/#/operations`);
  await consolePage.getByLabel('API key').fill(account.key);
  await consolePage.getByRole('button', { name: 'Sign in' }).click();
  const hosts = consolePage.getByRole('table', { name: 'Connected hosts' });
  await waitForShown(hosts.getByRole('row', { name: /Browser test connector/ }), path.join(ARTIFACTS, 'failed-console-grants.png'));
  expect(await hosts.getByRole('row', { name: /Browser test connector/ }).innerText()).toMatch(/read, write/);
  await hosts.scrollIntoViewIfNeeded();
  await consolePage.screenshot({ path: path.join(ARTIFACTS, '03-console-connected-hosts.png'), fullPage: true });
  await hosts.getByRole('button', { name: 'Revoke' }).click();
  await hosts.getByRole('button', { name: 'Revoke access' }).click();
  await waitForShown(consolePage.getByText('No MCP host is connected through OAuth.'), path.join(ARTIFACTS, 'failed-console-revoke.png'));
  await consolePage.close();
  const refused = await fetch(`${publicUrl}/mcp`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${provider.saved!.access_token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');
  // The SDK's client tries its refresh token, which went with the grant.
  await expect(call(client, 'memory_search', { query: 'remote host OAuth', agent_id: 'remote-host' })).rejects.toThrow('Invalid, expired or revoked refresh token');
});
