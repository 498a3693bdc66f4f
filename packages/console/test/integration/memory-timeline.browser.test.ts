import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium, requireChromium, waitForShown } from '../support/chromium';
import { apiAs, register, startConsoleServer, type ConsoleServer } from '../support/console-server';

/**
 * Memory history and expiry in the console: a memory's timeline (every version, before → after, restore) and what
 * expires soon, in Debian's chromium against the real API process. Screenshots go to
 * test-artifacts/console/ beside console.browser.test.ts's.
 */
const ARTIFACTS = path.resolve(__dirname, '../../../../test-artifacts/console');

jest.setTimeout(90_000);

let server: ConsoleServer;
let context: BrowserContext;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let key: string;
let api: ReturnType<typeof apiAs>;
const problems: string[] = [];

async function signedIn(): Promise<Page> {
  const page = await context.newPage();
  await signIn(page);
  return page;
}

async function signIn(page: Page): Promise<void> {
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(server.baseUrl + '/#/memories');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
}

beforeAll(async () => {
  requireChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  execFileSync(process.execPath, [path.resolve(__dirname, '../../scripts/ensure-built.mjs')], { stdio: 'inherit' });
  server = await startConsoleServer();
  key = await register(server);
  api = apiAs(server.baseUrl, key);
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

describe('memory lifecycle in the console', () => {
  test("a memory's timeline shows each version's change, and restoring one adds a version", async () => {
    const m = await api.post<{ id: string }>('/v1/memories', { agent_id: 'timeline', content: 'The standup is at 9:30', metadata: { team: 'core' } });
    await api.call('PATCH', `/v1/memories/${m.id}`, { content: 'The standup moved to 10:00' });
    await api.call('PATCH', `/v1/memories/${m.id}`, { importance: 0.9, ttl_seconds: 7200 });
    const page = await signedIn();
    await page.goto(`${server.baseUrl}/#/memories/${m.id}`);
    const timeline = page.getByRole('list', { name: 'Memory history' });
    await waitForShown(timeline.locator('li[data-version="3"]'), path.join(ARTIFACTS, 'failed-memory-timeline.png'));
    expect(await timeline.locator('li').count()).toBe(3);
    const v2 = timeline.locator('li[data-version="2"]');
    await expect(v2.locator('del').first().textContent()).resolves.toBe('The standup is at 9:30');
    await expect(v2.locator('ins').first().textContent()).resolves.toBe('The standup moved to 10:00');
    await expect(page.getByTestId('memory-expires').textContent()).resolves.toMatch(/in (1|2) h/);
    await page.screenshot({ path: path.join(ARTIFACTS, '20-memory-timeline.png'), fullPage: true });

    await timeline.getByRole('button', { name: 'Restore v1' }).click();
    await timeline.locator('li[data-version="4"]').waitFor();
    await expect(page.getByTestId('memory-content').textContent()).resolves.toBe('The standup is at 9:30');
    await expect(timeline.locator('li[data-version="4"]').textContent()).resolves.toContain('Restored a version');
    await page.screenshot({ path: path.join(ARTIFACTS, '21-memory-timeline-restored.png'), fullPage: true });
    await page.close();
  });

  test('a panel the server refused while shedding load (503, Retry-After) loads after the wait', async () => {
    const m = await api.post<{ id: string }>('/v1/memories', { agent_id: 'timeline', content: 'Deploys freeze on Fridays' });
    const page = await signedIn();
    let refused = 0;
    await page.route(/\/history\?/, async (route) => {
      if (refused++ === 0) return route.fulfill({ status: 503, headers: { 'Retry-After': '1' }, contentType: 'application/json', body: JSON.stringify({ error: { type: 'service_unavailable', message: 'Service overloaded' } }) });
      return route.continue();
    });
    await page.goto(`${server.baseUrl}/#/memories/${m.id}`);
    await waitForShown(page.getByRole('list', { name: 'Memory history' }).locator('li[data-version="1"]'), path.join(ARTIFACTS, 'failed-memory-timeline-retry.png'));
    expect(refused).toBe(2);
    await page.close();
  });

  test('the memory list shows when memories expire, and filters to what expires soon', async () => {
    const soon = await api.post<{ id: string }>('/v1/memories', { agent_id: 'expiry', content: 'Scratch: the build number is 4411', ttl_seconds: 1800 });
    await api.post('/v1/memories', { agent_id: 'expiry', content: 'Scratch: retro notes for the sprint', ttl_seconds: 5 * 86_400 });
    await api.post('/v1/memories', { agent_id: 'expiry', content: 'Keeps forever: the product is called Atlas' });
    const page = await context.newPage();
    // The unfiltered list asked for at sign-in is answered only after the filtered one (the real
    // answer, held): a stale answer must not replace the filtered list.
    let filteredAnswered!: () => void;
    const filteredDone = new Promise<void>((resolve) => (filteredAnswered = resolve));
    await page.route(/\/v1\/memories\?/, async (route) => {
      if (route.request().url().includes('expires_before')) {
        await route.fulfill({ response: await route.fetch() });
        filteredAnswered();
      } else {
        await filteredDone;
        await route.continue();
      }
    });
    await signIn(page);
    await page.goto(`${server.baseUrl}/#/memories?expiring=3600`);
    const table = page.getByRole('table', { name: 'Memories' });
    await table.locator(`tr[data-memory-id="${soon.id}"]`).waitFor();
    await filteredDone;
    // The held unfiltered answer arrives now: the list stays the filtered one.
    await page.waitForLoadState('networkidle');
    await expect(table.locator('tr[data-memory-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-memory-id')))).resolves.toEqual([soon.id]);
    await expect(page.getByText('1 memory matches the filters').isVisible()).resolves.toBe(true);
    await expect(table.locator(`tr[data-memory-id="${soon.id}"] td.expiring`).textContent()).resolves.toMatch(/in (29|30) min/);
    await page.screenshot({ path: path.join(ARTIFACTS, '22-memories-expiring-soon.png'), fullPage: true });
    await page.close();
  });
});
