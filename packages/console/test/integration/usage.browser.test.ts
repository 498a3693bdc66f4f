import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium, requireChromium } from '../support/chromium';
import { apiAs, register, startConsoleServer, type ConsoleServer } from '../support/console-server';

/**
 * The operations page's usage panel, in Debian's chromium against the real API process: the
 * account's memories, storage, searches and embeddings against the limits the operator set.
 * Screenshots go to test-artifacts/console/ (as console.browser.test.ts's).
 */
const ARTIFACTS = path.resolve(__dirname, '../../../../test-artifacts/console');

jest.setTimeout(90_000);

let server: ConsoleServer;
let context: BrowserContext;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let key: string;
const problems: string[] = [];

beforeAll(async () => {
  requireChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  execFileSync(process.execPath, [path.resolve(__dirname, '../../scripts/ensure-built.mjs')], { stdio: 'inherit' });
  server = await startConsoleServer({ ACCOUNT_EMBEDDINGS_PER_DAY: '20' });
  // The first account is the operator's.
  const operator = apiAs(server.baseUrl, await register(server));
  key = await register(server);
  const api = apiAs(server.baseUrl, key);
  const { account_id } = await api.get<{ account_id: string }>('/v1/usage');
  await operator.call('PATCH', `/v1/admin/accounts/${account_id}/limits`, { max_memories: 10, max_storage_bytes: 40_000, searches_per_day: 5 });
  for (const content of ['The build runs on two cores', 'Deploys go out on Tuesdays', 'The staging database is PostgreSQL 16']) {
    await api.post('/v1/memories', { agent_id: 'console-usage', content });
  }
  for (let i = 0; i < 4; i++) await api.post('/v1/memories/search', { query: 'deploys', agent_id: 'console-usage' });
  browser = await launchChromium();
  context = browser.context;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

afterEach(() => {
  expect(problems).toEqual([]);
  problems.length = 0;
});

async function signedInPage(): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text())) problems.push(`csp: ${msg.text()}`);
  });
  await page.goto(server.baseUrl + '/#/memories');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
  return page;
}

describe('the console: usage against limits', () => {
  test('the operations page shows each figure against its limit', async () => {
    const page = await signedInPage();
    await page.getByRole('link', { name: 'Operations' }).click();
    const bars = page.getByLabel('Usage against limits');
    await bars.waitFor();
    await page.getByRole('heading', { name: 'Usage and limits' }).scrollIntoViewIfNeeded();
    const text = await bars.innerText();
    expect(text).toMatch(/Memories\s+3 of 10 \(30%\)/);
    expect(text).toMatch(/Searches today\s+4 of 5 \(80%\)/);
    expect(text).toMatch(/Embeddings today\s+7 of 20 \(35%\)/);
    expect(text).toMatch(/Storage\s+[\d.]+ KiB of 39\.1 KiB \(\d+%\)/);
    await page.locator('section', { has: page.getByRole('heading', { name: 'Usage and limits' }) }).screenshot({ path: path.join(ARTIFACTS, '30-operations-usage.png') });
    await page.screenshot({ path: path.join(ARTIFACTS, '31-operations-usage-page.png'), fullPage: true });
  });
});
