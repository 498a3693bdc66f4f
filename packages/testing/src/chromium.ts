import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Locator } from 'playwright-core';

/** Debian's chromium (nothing downloaded); the flags keep it off this machine's closed network. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Fails at once, saying what to install, on a machine without chromium. */
export function requireChromium(): void {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`No browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
}

/** A headless chromium on a throw-away profile; close() ends it and removes the profile. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-console-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, viewport: { width: 1366, height: 860 } });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits for `locator` like `locator.waitFor()`; when it times out, the error says what the page
 * showed instead (its URL and text) and where a screenshot of it went, so a failure on a loaded CI
 * machine can be read after the fact.
 */
export async function waitForShown(locator: Locator, screenshotPath: string): Promise<void> {
  try {
    await locator.waitFor();
  } catch (err) {
    const page = locator.page();
    await page.screenshot({ path: screenshotPath, fullPage: true }).catch(() => undefined);
    const text = await page.locator('body').innerText({ timeout: 2_000 }).catch((e: Error) => `(unreadable: ${e.message})`);
    throw new Error(`${(err as Error).message}\nThe page at ${page.url()} showed:\n${text.slice(0, 3_000)}\nScreenshot: ${screenshotPath}`);
  }
}
