import { Config, ConfigError } from './config';
import type { Logger } from './logger';

export interface StartedService {
  logger: Logger;
  /** Stops taking work, drains, closes connections. */
  stop(): Promise<void>;
}

/**
 * The life of a service process, the same for the API and every worker: `start` brings it up;
 * SIGTERM or SIGINT stops it once, exiting 0 when `stop` resolves within `graceMs`, else 1. A
 * start-up failure exits 1, printing a ConfigError's message (it names the fix) or the stack.
 */
export function runService(graceMs: number, start: () => Promise<StartedService>): void {
  start().then(
    ({ logger, stop }) => {
      let stopping = false;
      const onSignal = async (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        logger.info('shutting down', { signal });
        setTimeout(() => {
          logger.error('shutdown grace period exceeded; exiting');
          process.exit(1);
        }, graceMs).unref();
        try {
          await stop();
          logger.info('stopped');
          process.exit(0);
        } catch (err) {
          logger.error('shutdown failed', { error: (err as Error).message });
          process.exit(1);
        }
      };
      process.on('SIGTERM', (s) => void onSignal(s));
      process.on('SIGINT', (s) => void onSignal(s));
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof ConfigError ? err.message : ((err as Error).stack ?? String(err))}\n`);
      process.exit(1);
    },
  );
}

/** Worker processes exist only in split mode; in embedded mode the API runs their code itself. */
export function requireSplitMode(config: Config, service: string): asserts config is Config & { databaseUrl: string; queueUrl: string } {
  if (!config.databaseUrl || !config.queueUrl) {
    throw new ConfigError(`The ${service} runs in split mode: set DATABASE_URL and REDIS_URL (embedded mode runs it inside the API).`);
  }
}
