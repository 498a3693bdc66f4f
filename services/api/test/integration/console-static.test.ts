import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import supertest from 'supertest';
import { CONSOLE_CSP, consoleRouter } from '../../src/routes/console/console.router';
import { createTestApp, TestApp } from '@ams/testing';

/** The console's static files: served at / with a strict policy, and never in the API's way. */
describe('console static files', () => {
  let dist: string;
  const appOver = (dir: string) => {
    const app = express();
    app.use(consoleRouter({} as never, dir));
    app.use((_req, res) => res.status(404).json({ type: 'not_found' }));
    return supertest(app);
  };

  beforeAll(() => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'console-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><script type="module" src="/assets/app-1.js"></script>');
    fs.writeFileSync(path.join(dist, 'assets', 'app-1.js'), 'console.log(1)');
  });
  afterAll(() => fs.rmSync(dist, { recursive: true, force: true }));

  it('serves the page at / with the CSP and no caching, and hashed assets as immutable', async () => {
    const page = await appOver(dist).get('/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['x-frame-options']).toBe('DENY');
    const asset = await appOver(dist).get('/assets/app-1.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toMatch(/immutable/);
    expect(asset.headers['content-security-policy']).toBe(CONSOLE_CSP);
  });

  it('allows no inline script or style and no other origin', () => {
    expect(CONSOLE_CSP).toContain("default-src 'none'");
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("style-src 'self'");
    expect(CONSOLE_CSP).toContain("connect-src 'self'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe|\*|https?:/);
  });

  it('falls through to 404 for a missing asset, and when the bundle is not built', async () => {
    expect((await appOver(dist).get('/assets/missing.js')).status).toBe(404);
    expect((await appOver(path.join(dist, 'nope')).get('/')).status).toBe(404);
  });

  describe('inside the API', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(() => t.close());

    it('leaves API routes and their errors alone', async () => {
      const health = await t.request().get('/v1/health');
      expect(health.status).toBe(200);
      expect(health.headers['content-security-policy']).toBeUndefined();
      const missing = await t.request().get('/v1/nothing-here');
      expect(missing.status).toBe(401);
    });
  });
});
