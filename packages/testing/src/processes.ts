import { ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { waitFor } from './wait';

const ROOT = path.resolve(__dirname, '../../..');

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
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
 * itself runs it with tsx's loader, not the tsx wrapper, so signals such as SIGKILL reach it.
 */
export function startService(entry: string, env: Record<string, string | undefined>, opts: { captureStderr?: boolean } = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry)], {
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
