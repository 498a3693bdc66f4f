import type { Config, Logger } from '@ams/core';
import type { Database } from '@ams/db';

/** Who a request authenticated as: its account, its key and that key's scopes. */
export interface AuthContext {
  accountId: string;
  keyId: string;
  scopes: string[];
  /** A key bound to an agent writes to it by default and reads only its memories. */
  agentId: string | null;
}

/** The process's resources these rules use (the API's context satisfies it). */
export interface AppContext {
  config: Config;
  logger: Logger;
  db: Database;
}
