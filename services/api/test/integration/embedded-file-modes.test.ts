import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startService, stopProcess, waitFor } from '@ams/testing';

/** Every entry under `dir` with its permission bits, e.g. ['data/base/1', 'f', 0o600]. */
function modes(dir: string): [string, 'd' | 'f', number][] {
  const out: [string, 'd' | 'f', number][] = [];
  const visit = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return;
    out.push([path.relative(dir, p) || '.', st.isDirectory() ? 'd' : 'f', st.mode & 0o777]);
    if (st.isDirectory()) for (const name of fs.readdirSync(p)) visit(path.join(p, name));
  };
  visit(dir);
  return out;
}
const octal = (entries: [string, string, number][]) => entries.map(([p, kind, mode]) => `${kind} ${mode.toString(8)} ${p}`);

async function startEmbedded(dataDir: string): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = startService('services/api/src/server.ts', {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: '',
    REDIS_URL: '',
    DATA_DIR: dataDir,
    EMBEDDING_PROVIDER: 'lexical',
    BOOTSTRAP_ADMIN_KEY: 'true',
    METRICS_PORT: '',
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/v1/health`).catch(() => undefined))?.status === 200, 90_000, 'embedded API listening');
  return { child, base };
}

/** The store of `npm start` holds every account's memories in plain files: this user's only. */
describe('embedded mode DATA_DIR permissions', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-modes-'));
  const dataDir = path.join(root, 'data');
  let child: ChildProcess | undefined;
  afterAll(async () => {
    await stopProcess(child, 'SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('creates a fresh DATA_DIR 0700 with every directory 0700 and every file 0600, while running and after a stop', async () => {
    const api = await startEmbedded(dataDir);
    child = api.child;
    const post = (route: string, body: unknown, key?: string) =>
      fetch(`${api.base}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });
    const reg = (await (await post('/v1/auth/register', { email: 'modes@example.com', password: 'correct horse battery' })).json()) as { api_key: string };
    for (let i = 0; i < 20; i++) expect((await post('/v1/memories', { agent_id: 'modes', content: `memory number ${i} written to disk` }, reg.api_key)).status).toBe(201);

    const running = modes(dataDir);
    expect(running.length).toBeGreaterThan(100);
    expect(running.find(([p]) => p === '.')).toEqual(['.', 'd', 0o700]);
    expect(running.some(([p]) => p.endsWith('admin-api-key.txt'))).toBe(true);
    // Nothing any other user can read, write or enter, even for files PostgreSQL makes as it runs.
    expect(octal(running.filter(([, , mode]) => mode & 0o077))).toEqual([]);

    expect(await stopProcess(child, 'SIGTERM')).toBe(0);
    child = undefined;
    const stopped = modes(dataDir);
    expect(octal(stopped.filter(([, kind, mode]) => mode !== (kind === 'd' ? 0o700 : 0o600)))).toEqual([]);
  }, 180_000);

  it('makes an existing store left world-readable and world-writable owner-only on the next start', async () => {
    for (const [p, kind] of modes(dataDir)) fs.chmodSync(path.join(dataDir, p), kind === 'd' ? 0o755 : 0o666);
    const api = await startEmbedded(dataDir);
    child = api.child;
    expect(octal(modes(dataDir).filter(([, , mode]) => mode & 0o077))).toEqual([]);
    expect((await fetch(`${api.base}/v1/health`)).status).toBe(200);
  }, 180_000);
});
