import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { waitFor } from './wait';

export { freePort } from './ports';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * How a test runs a service: as production does, `node` on the built JavaScript with the `ams-dist`
 * export condition (so @ams/* imports resolve to dist/), the default; or from its TypeScript sources
 * through tsx, with SERVICE_RUNTIME=source. The built form starts on ~30 % less CPU (no loader hooks,
 * no transform), and the process suites start services some fifty times a run.
 */
export type ServiceRuntime = 'source' | 'built';

const defaultRuntime = (): ServiceRuntime => (process.env.SERVICE_RUNTIME === 'source' ? 'source' : 'built');

/** The built file of a source entry point: services/api/src/server.ts -> services/api/dist/server.js. */
export function builtEntry(entry: string): string {
  const m = /^((?:packages|services)\/[^/]+)\/src\/(.+)\.ts$/.exec(entry);
  if (!m) throw new Error(`not a workspace source entry point: ${entry}`);
  return `${m[1]}/dist/${m[2]}.js`;
}

/** Node's arguments for an entry point in a runtime: what production's command line holds for 'built'. */
function serviceArgs(entry: string, runtime: ServiceRuntime): string[] {
  return runtime === 'built' ? ['--conditions=ams-dist', path.join(ROOT, builtEntry(entry))] : ['--import', 'tsx', path.join(ROOT, entry)];
}

let builtThisProcess = false;
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
/** The pid in a lock directory; 0 while its holder has yet to write it (or the lock just went). */
const holderOf = (lock: string) => {
  try {
    return Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
  } catch {
    return 0;
  }
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Brings dist/ up to date with the sources (`npm run build:js`: tsc -b is incremental, so an
 * up-to-date tree costs its check), once per test process. A lock directory keeps test processes
 * from building at once; one left by a process that died is taken over.
 */
export function ensureBuilt(): void {
  if (builtThisProcess) return;
  const lock = path.join(ROOT, '.cache', 'build.lock');
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  for (const deadline = Date.now() + 10 * 60_000; ; pause(250)) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = holderOf(lock);
      if (holder && !alive(holder)) fs.rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`another test process has held ${lock} for 10 minutes`);
    }
  }
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
    execFileSync(process.execPath, ['scripts/copy-build-assets.mjs'], { cwd: ROOT, stdio: 'ignore' });
    builtThisProcess = true;
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.end();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

/** A Redis of the test's own, so stopping, restarting or flushing it disturbs nobody else. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await waitFor(() => accepts(port), 5_000, `redis-server on ${port}`);
  return child;
}

/**
 * A service entry point (e.g. 'services/embedding-worker/src/main.ts') as its own process. Node
 * itself runs it (with tsx's loader from source, not the tsx wrapper), so signals such as SIGKILL
 * reach it. `runtime: 'built'` runs its dist/ file as production does, building first if needed.
 */
export function startService(
  entry: string,
  env: Record<string, string | undefined>,
  opts: { captureStderr?: boolean; runtime?: ServiceRuntime } = {},
): ChildProcess {
  const runtime = opts.runtime ?? defaultRuntime();
  if (runtime === 'built') ensureBuilt();
  return spawn(process.execPath, serviceArgs(entry, runtime), {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: process.env.SERVICE_LOG_LEVEL ?? 'error', EMBEDDING_THREAD: 'worker', ...env },
    stdio: ['ignore', 'inherit', opts.captureStderr ? 'pipe' : 'inherit'],
  });
}

/** Signals the process and resolves with its exit code once it has exited. */
export async function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (!child) return null;
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill(signal);
  return exited;
}
