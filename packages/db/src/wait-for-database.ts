import type { Knex } from 'knex';
import { setTimeout as delay } from 'node:timers/promises';
import { isDatabaseUnavailable } from './db-errors';

/** How long a starting process waits for its database to answer before it gives up. */
const WAIT_MS = 60_000;
const RETRY_DELAY_MS = 1_000;

/**
 * Resolves once the database answers. A process started beside its database (a compose stack)
 * may find it not yet reachable: its name not yet resolvable on the network, or nothing listening
 * yet. Those are tried again every second up to `waitMs`, each reported through `onRetry`; any
 * other error (a wrong password, a database that does not exist) fails at once.
 */
export async function waitForDatabase(knex: Knex, onRetry: (err: Error) => void, waitMs = WAIT_MS): Promise<void> {
  const giveUpAt = Date.now() + waitMs;
  for (;;) {
    try {
      await knex.raw('SELECT 1');
      return;
    } catch (err) {
      if (!isDatabaseUnavailable(err) || Date.now() + RETRY_DELAY_MS > giveUpAt) throw err;
      onRetry(err as Error);
      await delay(RETRY_DELAY_MS);
    }
  }
}
