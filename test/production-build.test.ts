import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { builtEntry, createScratchDatabase, ensureBuilt, freePort, startService, stopProcess, waitFor } from '@ams/testing';

const ROOT = path.resolve(__dirname, '..');
const ENTRIES = {
  api: 'services/api/src/server.ts',
  worker: 'services/embedding-worker/src/main.ts',
  dispatcher: 'services/webhook-dispatcher/src/main.ts',
};

/**
 * The three services as production runs them (the image's command line): `node` on the built
 * JavaScript, @ams/* resolved to dist/ through the `ams-dist` export condition, no TypeScript
 * loader. Split mode against a database of this file's own and the run's Redis: each starts,
 * serves, and exits 0 on SIGTERM.
 */
describe('the production build', () => {
  let scratch: { url: string; drop(): Promise<void> };
  const children = new Set<ChildProcess>();
  const start = (entry: string, env: Record<string, string>) => {
    const child = startService(entry, { DATABASE_URL: scratch.url, NODE_ENV: 'production', LOG_FORMAT: 'json', EMBEDDING_PROVIDER: 'lexical', ...env }, { runtime: 'built' });
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  };
  const answers = async (url: string) => (await fetch(url).catch(() => undefined))?.status === 200;

  beforeAll(async () => {
    ensureBuilt();
    scratch = await createScratchDatabase('build');
  }, 600_000);
  afterAll(async () => {
    await Promise.all([...children].map((c) => stopProcess(c, 'SIGKILL')));
    await scratch?.drop();
  });

  it('emits JavaScript for each entry point, with the files the code reads beside it', () => {
    for (const entry of Object.values(ENTRIES)) expect(fs.existsSync(path.join(ROOT, builtEntry(entry)))).toBe(true);
    expect(fs.existsSync(path.join(ROOT, 'packages/embeddings/dist/model-thread/worker.mjs'))).toBe(true);
    expect(fs.existsSync(path.join(ROOT, 'services/api/dist/openapi/docs-assets/init.js'))).toBe(true);
    // The entry points name their workspace dependencies by package: resolved by the export condition.
    expect(fs.readFileSync(path.join(ROOT, builtEntry(ENTRIES.api)), 'utf8')).toContain('require("@ams/core")');
  });

  it('runs the API with node: migrates, answers /v1/health healthy, exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const api = start(ENTRIES.api, { PORT: String(port), HOST: '127.0.0.1', BOOTSTRAP_ADMIN_KEY: 'false' });
    expect(api.spawnargs).toEqual([process.execPath, '--conditions=ams-dist', path.join(ROOT, 'services/api/dist/server.js')]);
    await waitFor(() => answers(`http://127.0.0.1:${port}/v1/health`), 90_000, 'the built API listening');
    const health = await (await fetch(`http://127.0.0.1:${port}/v1/health`)).json();
    expect(health).toMatchObject({ status: 'healthy', database: 'connected', redis: 'connected' });
    expect(await stopProcess(api, 'SIGTERM')).toBe(0);
  }, 120_000);

  it('runs the embedding worker and the webhook dispatcher with node: each serves its metrics and exits 0 on SIGTERM', async () => {
    const [workerPort, dispatcherPort] = [await freePort(), await freePort()];
    const worker = start(ENTRIES.worker, { HOST: '127.0.0.1', EMBEDDING_WORKER_METRICS_PORT: String(workerPort) });
    const dispatcher = start(ENTRIES.dispatcher, { HOST: '127.0.0.1', WEBHOOK_DISPATCHER_METRICS_PORT: String(dispatcherPort) });
    await waitFor(() => answers(`http://127.0.0.1:${workerPort}/metrics`), 90_000, 'the built embedding worker serving /metrics');
    await waitFor(() => answers(`http://127.0.0.1:${dispatcherPort}/metrics`), 90_000, 'the built webhook dispatcher serving /metrics');
    expect(await stopProcess(worker, 'SIGTERM')).toBe(0);
    expect(await stopProcess(dispatcher, 'SIGTERM')).toBe(0);
  }, 120_000);
});
