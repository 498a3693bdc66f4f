import type { Config } from '@ams/core';
import type { Database } from '@ams/db';

/** Who is asking: the account whose webhooks these are. */
export interface AuthContext {
  accountId: string;
}

/** The process's resources the webhook rules use (the API's context satisfies it). */
export interface AppContext {
  config: Config;
  db: Database;
  /** Hands deliveries, recorded in a transaction that has committed, to the dispatcher. Never throws. */
  webhookDispatch?: (accountId: string, deliveryIds: string[]) => void;
}
