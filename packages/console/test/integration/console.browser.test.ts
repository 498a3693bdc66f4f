import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { startHttpsReceiver, waitFor, type HttpsReceiver } from '@ams/testing';
import { launchChromium, requireChromium } from '../support/chromium';
import { checkDocImage } from '../support/doc-images';
import { apiAs, register, startConsoleServer, type ConsoleServer } from '../support/console-server';

/**
 * The console in Debian's chromium (nothing downloaded), against the real API process on its own
 * PostgreSQL database. Screenshots of each page go to test-artifacts/console/ (ignored by git); the
 * ones the README shows are checked against docs/images/ (`npm run docs:screenshots` rewrites them).
 */
const ARTIFACTS = path.resolve(__dirname, '../../../../test-artifacts/console');
/** Screenshots the docs show: test name → image under docs/images/ (the window, not the full page). */
const DOC_SHOTS: Record<string, string> = { '03-search': 'console-search.png' };
/** How much of a docs image a run may change: its latency and scores (two runs here differed in under 0.1 % of pixels). */
const DOC_SHOT_TOLERANCE = 0.02;

jest.setTimeout(90_000);

let server: ConsoleServer;
let receiver: HttpsReceiver;
let receiverFails = true;
let context: BrowserContext;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let caFile: string;
let key: string;
let api: ReturnType<typeof apiAs>;
const problems: string[] = [];

async function newPage(): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    // A blocked inline script or style would show up here as a CSP violation.
    if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text())) problems.push(`csp: ${msg.text()}`);
  });
  return page;
}

async function signIn(page: Page, withKey = key): Promise<void> {
  await page.goto(server.baseUrl + '/');
  await page.evaluate(() => sessionStorage.clear());
  await page.goto(server.baseUrl + '/#/memories');
  await page.getByLabel('API key').fill(withKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const docImage = DOC_SHOTS[name];
  if (docImage) await checkDocImage(page, docImage, await page.screenshot({ path: path.join(ARTIFACTS, docImage) }), DOC_SHOT_TOLERANCE);
}

/** No element wider than the window: long content must wrap or scroll inside its box. */
async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll).toBeLessThanOrEqual(client);
}

beforeAll(async () => {
  requireChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  // The bundle, as `npm start` would build it (a no-op when up to date).
  execFileSync(process.execPath, [path.resolve(__dirname, '../../scripts/ensure-built.mjs')], { stdio: 'inherit' });
  receiver = await startHttpsReceiver({ handler: (_req, res) => res.writeHead(receiverFails ? 500 : 200).end(receiverFails ? 'receiver down' : 'ok') });
  caFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ams-console-ca-')), 'ca.pem');
  fs.writeFileSync(caFile, receiver.ca);
  server = await startConsoleServer({
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_CA_FILE: caFile,
    WEBHOOK_RETRY_DELAYS_MS: '100,100',
    WEBHOOK_RECONCILE_INTERVAL_MS: '200',
  });
  key = await register(server);
  api = apiAs(server.baseUrl, key);
  browser = await launchChromium();
  context = browser.context;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receiver?.close();
  if (caFile) fs.rmSync(path.dirname(caFile), { recursive: true, force: true });
});

afterEach(() => {
  expect(problems).toEqual([]);
  problems.length = 0;
});

describe('the console served by the API', () => {
  test('/ serves the bundle with a strict Content-Security-Policy and no inline script or style', async () => {
    const res = await fetch(server.baseUrl + '/');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style=/);
    expect(html).not.toContain('mem_');
  });

  test('a wrong key gets a clear sign-in error, and the key is never put in the URL', async () => {
    const page = await newPage();
    await page.goto(server.baseUrl + '/');
    await page.getByLabel('API key').fill('mem_not_a_real_key_at_all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const error = page.getByTestId('signin-error');
    await expect(error.textContent()).resolves.toMatch(/That key was not accepted/);
    await expect(error.textContent()).resolves.toMatch(/Request ID: \S+/);
    expect(page.url()).not.toContain('mem_');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await shot(page, '01-sign-in-error');
    await page.close();
  });

  test('sign in, find a memory created through the API in the list, and sign out clears the key', async () => {
    const memory = await api.post<{ id: string }>('/v1/memories', {
      content: 'The deploy pipeline for Atlas runs on PostgreSQL 16 with pgvector; Alice owns the rollout.',
      agent_id: 'release-bot',
      importance: 0.9,
      metadata: { source: 'console-test', tags: ['deploy'] },
    });
    const page = await newPage();
    await signIn(page);
    expect(page.url()).not.toContain('mem_');
    const row = page.locator(`tr[data-memory-id="${memory.id}"]`);
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('The deploy pipeline for Atlas');
    await expect(row.textContent()).resolves.toContain('release-bot');
    await shot(page, '02-memories');

    // A filter narrows the list over the API.
    await page.getByLabel('Tier').selectOption('cold');
    await page.getByText('No memories match these filters').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await row.waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.close();
  });

  test('the search playground finds the memory and draws its score breakdown with the latency', async () => {
    const memory = await api.post<{ id: string }>('/v1/memories', { content: 'Kubernetes autoscaling thresholds were tuned for the ingestion workers.', agent_id: 'release-bot' });
    await api.post('/v1/memories', { content: 'Lunch order preferences for the team offsite.', agent_id: 'release-bot' });
    const page = await newPage();
    await signIn(page);
    await page.getByRole('link', { name: 'Search playground' }).click();
    await page.getByLabel('Query').fill('kubernetes autoscaling ingestion');
    await page.getByLabel('Hybrid').check();
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const result = page.locator(`li.result[data-memory-id="${memory.id}"]`);
    await result.waitFor();
    await expect(result.locator('.score-bar dt').allTextContents()).resolves.toEqual(['Vector', 'Keyword', 'Graph', 'RRF (fused)', 'Importance']);
    await expect(page.getByTestId('latency').textContent()).resolves.toMatch(/^\d+ ms$/);
    await shot(page, '03-search');
    await page.close();
  });

  test('a memory page shows content and metadata; delete, then restore, through the console', async () => {
    const memory = await api.post<{ id: string }>('/v1/memories', {
      content: 'Rotate the staging database credentials every 30 days.',
      agent_id: 'ops-agent',
      metadata: { team: 'platform', review: { by: 'alice', at: '2026-11-01' } },
    });
    const page = await newPage();
    await signIn(page);
    await page.goto(`${server.baseUrl}/#/memories/${memory.id}`);
    await expect(page.getByTestId('memory-content').textContent()).resolves.toBe('Rotate the staging database credentials every 30 days.');
    await expect(page.getByLabel('Metadata JSON').textContent()).resolves.toContain('"by": "alice"');
    await page.getByText('ready', { exact: true }).waitFor();
    await shot(page, '04-memory');

    // Edit: importance and tier through the form, metadata merged.
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByLabel('Importance (0–1)').fill('0.85');
    await page.getByRole('combobox', { name: /^Tier/ }).selectOption('hot');
    await page.getByLabel('Merge into metadata (JSON object)').fill('{"reviewed": true}');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByTestId('memory-content').waitFor();
    await expect(api.get(`/v1/memories/${memory.id}`)).resolves.toMatchObject({ importance: 0.85, tier: 'hot', metadata: { team: 'platform', reviewed: true } });
    await page.getByRole('button', { name: 'Archive', exact: true }).click();
    await page.getByRole('button', { name: 'Unarchive' }).waitFor();
    await expect(api.get(`/v1/memories/${memory.id}`)).resolves.toMatchObject({ archived: true });

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Delete memory' }).click();
    await page.getByText('Memory deleted').waitFor();
    await expect(fetch(`${server.baseUrl}/v1/memories/${memory.id}`, { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.status)).resolves.toBe(404);

    await page.getByRole('button', { name: 'Restore memory' }).click();
    await page.getByTestId('memory-content').waitFor();
    await expect(api.get<{ id: string }>(`/v1/memories/${memory.id}`)).resolves.toMatchObject({ id: memory.id });
    await page.close();
  });

  test('HTML in memory content is shown as text and never runs', async () => {
    const payload = '<img src=x onerror="window.__xss=1;document.title=\'pwned\'"><script>window.__xss=2</script>';
    const memory = await api.post<{ id: string }>('/v1/memories', { content: payload, agent_id: 'ops-agent' });
    const page = await newPage();
    await signIn(page);
    await page.goto(`${server.baseUrl}/#/memories/${memory.id}`);
    const content = page.getByTestId('memory-content');
    await expect(content.textContent()).resolves.toBe(payload);
    expect(await content.locator('img, script').count()).toBe(0);
    await page.goto(`${server.baseUrl}/#/memories`);
    await page.locator(`tr[data-memory-id="${memory.id}"]`).waitFor();
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.title()).toBe('Agent Memory Console');
    expect(await page.locator('main img').count()).toBe(0);
    await page.close();
  });

  test('10 KB of content and deeply nested metadata render without breaking the layout', async () => {
    let nested: Record<string, unknown> = { leaf: 'x'.repeat(300) };
    for (let i = 0; i < 30; i++) nested = { [`level_${i}_with_a_long_key_name`]: nested };
    const content = `${'averyveryverylongwordwithoutanyspaces'.repeat(40)} ${'Ten kilobytes of memory content. '.repeat(270)}`;
    expect(content.length).toBeGreaterThan(10_000);
    const memory = await api.post<{ id: string }>('/v1/memories', { content, agent_id: 'ops-agent', metadata: nested });
    const page = await newPage();
    await signIn(page);
    await page.goto(`${server.baseUrl}/#/memories/${memory.id}`);
    await expect(page.getByTestId('memory-content').textContent()).resolves.toBe(content);
    await expectNoHorizontalOverflow(page);
    await shot(page, '05-memory-large');
    await page.goto(`${server.baseUrl}/#/memories`);
    await page.locator(`tr[data-memory-id="${memory.id}"]`).waitFor();
    await expectNoHorizontalOverflow(page);
    await page.close();
  });

  test('a failed webhook delivery is replayed from the operations page', async () => {
    // A token in the query string, as many receivers take one: delivered with it, never shown.
    const hook = await api.post<{ id: string }>('/v1/webhooks', { url: `${receiver.url}?token=console-hook-secret`, event_types: ['memory.created'], description: 'console test receiver' });
    receiverFails = true;
    await api.post('/v1/memories', { content: 'A memory whose webhook delivery fails first.', agent_id: 'ops-agent' });
    await waitFor(
      async () => (await api.get<{ data: Array<{ status: string }> }>(`/v1/webhooks/${hook.id}/deliveries`)).data.some((d) => d.status === 'failed'),
      30_000,
      'the delivery to fail after its retries',
    );
    receiverFails = false;
    const page = await newPage();
    await signIn(page);
    await page.getByRole('link', { name: 'Operations' }).click();
    await page.getByRole('button', { name: 'Deliveries' }).click();
    const replay = page.getByRole('button', { name: 'Replay' });
    await replay.waitFor();
    await page.getByText('receiver down').first().waitFor();
    await shot(page, '06-operations-failed-delivery');
    const before = receiver.requests.length;
    await replay.click();
    await receiver.waitForRequests(before + 1, 15_000);
    expect(receiver.requests.at(-1)!.path).toBe('/webhook?token=console-hook-secret');
    await page.locator('.webhook-url', { hasText: '/webhook?token=redacted' }).first().waitFor();
    expect(await page.content()).not.toContain('console-hook-secret');
    await waitFor(
      async () => (await api.get<{ data: Array<{ status: string }> }>(`/v1/webhooks/${hook.id}/deliveries`)).data.every((d) => d.status === 'succeeded'),
      15_000,
      'the replayed delivery to succeed',
    );
    await page.getByRole('button', { name: 'Refresh deliveries' }).click();
    await page.getByText('succeeded', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Replay' }).count()).toBe(0);
    await shot(page, '07-operations');
    await page.close();
  });

  test('an API key is shown once when created, and revoked from the operations page', async () => {
    const page = await newPage();
    await signIn(page);
    await page.getByRole('link', { name: 'Operations' }).click();
    await page.getByLabel('Name').fill('ci-agent');
    await page.getByRole('checkbox', { name: 'write' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = await page.getByLabel('New API key').inputValue();
    expect(shown).toMatch(/^mem_/);
    await expect(fetch(`${server.baseUrl}/v1/auth/key`, { headers: { Authorization: `Bearer ${shown}` } }).then((r) => r.json())).resolves.toMatchObject({ scopes: ['read', 'write'] });
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByLabel('New API key').count()).toBe(0);
    expect(await page.content()).not.toContain(shown);

    const row = page.getByRole('row', { name: /ci-agent/ });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke key' }).click();
    await row.getByText('revoked').waitFor();
    await expect(fetch(`${server.baseUrl}/v1/auth/key`, { headers: { Authorization: `Bearer ${shown}` } }).then((r) => r.status)).resolves.toBe(401);
    await page.close();
  });

  test('a server error shows the API message and request id', async () => {
    const page = await newPage();
    await signIn(page);
    // A real 500 from the real server: the patterns table is briefly out of reach.
    await server.knex.raw('ALTER TABLE patterns RENAME TO patterns_away');
    try {
      await page.goto(`${server.baseUrl}/#/patterns`);
      const panel = page.getByTestId('error-panel');
      await panel.waitFor();
      await expect(panel.textContent()).resolves.toMatch(/Error 500/);
      await expect(panel.textContent()).resolves.toMatch(/internal_error/);
      const requestId = await page.getByTestId('request-id').textContent();
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      await shot(page, '08-server-error');
    } finally {
      await server.knex.raw('ALTER TABLE patterns_away RENAME TO patterns');
    }
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByText('No patterns').waitFor();
    await page.close();
  });

  test('what a key may not do is hidden, and a 403 is shown as such', async () => {
    const { id } = await api.post<{ id: string }>('/v1/memories', { content: 'Read-only keys can look but not touch.', agent_id: 'ops-agent' });
    const readOnly = await api.post<{ key: string }>('/v1/api-keys', { name: 'viewer', scopes: ['read'] });
    const page = await newPage();
    await signIn(page, readOnly.key);
    await page.goto(`${server.baseUrl}/#/memories/${id}`);
    await page.getByTestId('memory-content').waitFor();
    for (const name of ['Edit', 'Archive', 'Delete']) expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
    await page.getByRole('link', { name: 'Operations' }).click();
    await page.getByText('Webhooks are managed with an admin key.').waitFor();

    const writeOnly = await api.post<{ key: string }>('/v1/api-keys', { name: 'writer', scopes: ['write'] });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, writeOnly.key);
    const panel = page.getByTestId('error-panel');
    await panel.waitFor();
    await expect(panel.textContent()).resolves.toMatch(/Not allowed with this key/);
    await expect(panel.textContent()).resolves.toMatch(/Insufficient scope\. Required: read/);
    await page.close();
  });

  test('every main page renders its data (screenshots)', async () => {
    const agent = 'research-agent';
    const session = await api.post<{ id: string }>('/v1/sessions', { agent_id: agent, title: 'Evaluate vector databases' });
    for (const content of [
      'Alice compared pgvector and Qdrant for the Atlas project.',
      'pgvector HNSW recall was 0.97 at ef_search 40 on the Atlas benchmark.',
      'Alice prefers PostgreSQL because the team already runs it.',
    ]) {
      await api.post('/v1/memories', { content, agent_id: agent, session_id: session.id, auto_extract_entities: true, importance: 0.6 });
    }
    await api.post(`/v1/sessions/${session.id}/summarize`);
    await api.post('/v1/projects', { name: 'Atlas', slug: 'atlas', description: 'The retrieval platform.', stack: { databases: ['postgresql'] } });
    const first = await api.post<{ id: string }>('/v1/decisions', { title: 'Use Qdrant for vectors', rationale: 'Fast ANN search.', project_slug: 'atlas' });
    const second = await api.post<{ id: string }>(`/v1/decisions/${first.id}/supersede`, { title: 'Use pgvector for vectors', rationale: 'One database to run; recall is good enough.' });
    await api.post('/v1/patterns', { title: 'Validate at the edge', description: 'Every route validates its input with joi before the service runs.', category: 'validation', example_code: "const body = validate(schema, req.body);" });
    await api.post('/v1/memories/search', { query: 'vector database choice', agent_id: agent });
    const entities = await api.get<{ data: Array<{ id: string; name: string }> }>('/v1/entities?limit=100');
    const graphEntity = entities.data.find((e) => /alice/i.test(e.name)) ?? entities.data[0];
    const agents = await api.get<{ data: Array<{ id: string; name: string }> }>('/v1/agents');
    const agentId = agents.data.find((a) => a.name === agent)!.id;

    const page = await newPage();
    await signIn(page);
    const visit = async (hash: string, ready: () => Promise<unknown>, name: string) => {
      await page.goto(`${server.baseUrl}/#${hash}`);
      await ready();
      await expectNoHorizontalOverflow(page);
      await shot(page, name);
    };
    await visit('/agents', () => page.getByRole('link', { name: agent }).waitFor(), '10-agents');
    await visit(`/agents/${agentId}`, () => page.getByText('Tier breakdown').waitFor(), '11-agent');
    await visit('/sessions', () => page.getByRole('link', { name: 'Evaluate vector databases' }).waitFor(), '12-sessions');
    await visit(`/sessions/${session.id}`, () => page.getByText('Timeline (3 memories)').waitFor(), '13-session');
    await visit('/entities', () => page.locator('.entity-card').first().waitFor(), '14-entities');
    expect(graphEntity).toBeDefined();
    await visit(`/entities/${graphEntity!.id}`, () => page.getByRole('heading', { name: 'Linked memories' }).waitFor(), '15-entity-graph');
    await visit('/projects', () => page.getByRole('link', { name: 'Atlas' }).waitFor(), '16-projects');
    await visit('/projects/atlas', () => page.getByText('The retrieval platform.').waitFor(), '17-project');
    await visit('/decisions', () => page.getByRole('link', { name: 'Use pgvector for vectors' }).waitFor(), '18-decisions');
    await visit(`/decisions/${second.id}`, () => page.locator('.chain li').nth(1).waitFor(), '19-decision-chain');
    await expect(page.locator('.chain li').allTextContents()).resolves.toEqual([expect.stringContaining('Use Qdrant for vectors'), expect.stringContaining('Use pgvector for vectors')]);
    await visit('/patterns', () => page.getByRole('link', { name: 'Validate at the edge' }).waitFor(), '20-patterns');
    await page.close();
  });

  test('/docs (Swagger UI) renders under its own policy, and a key typed into Authorize is not kept', async () => {
    const res = await fetch(server.baseUrl + '/docs');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const page = await newPage();
    const elsewhere: string[] = [];
    page.on('request', (r) => void (r.url().startsWith(server.baseUrl) || r.url().startsWith('data:') || elsewhere.push(r.url())));
    await page.goto(server.baseUrl + '/docs');
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(50);
    await page.locator('button.authorize').first().click();
    await page.locator('.modal-ux input').first().fill('mem_typed_into_swagger');
    await page.locator('.modal-ux button.authorize').first().click();
    await shot(page, '30-docs-authorize');
    expect(JSON.stringify(await page.evaluate(() => ({ ...localStorage })))).not.toContain('mem_typed_into_swagger');
    expect(elsewhere).toEqual([]);
    await page.close();
  });
});
