import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * The real dispatcher entry point as its own process, with test-speed settings. Node itself runs
 * it (with tsx's loader), not the tsx wrapper, so signals such as SIGKILL reach the dispatcher.
 */
export function startDispatcher(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'services/webhook-dispatcher/src/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.DISPATCHER_LOG_LEVEL ?? 'error',
      WEBHOOK_RETRY_DELAYS_MS: '200,300,400',
      WEBHOOK_RECONCILE_INTERVAL_MS: '150',
      WEBHOOK_TIMEOUT_MS: '1000',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
}

export async function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await exited;
}
