import type { ChildProcess } from 'node:child_process';
import { startService } from './processes';

/** The real dispatcher entry point as its own process, with test-speed settings. */
export function startDispatcher(env: Record<string, string>): ChildProcess {
  return startService('services/webhook-dispatcher/src/main.ts', {
    WEBHOOK_RETRY_DELAYS_MS: '200,300,400',
    WEBHOOK_RECONCILE_INTERVAL_MS: '150',
    WEBHOOK_TIMEOUT_MS: '1000',
    // Several dispatchers run at once: no metrics listener unless a test asks for one.
    WEBHOOK_DISPATCHER_METRICS_PORT: '0',
    ...env,
  });
}
