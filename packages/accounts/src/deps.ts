import type { Logger } from '@ams/core';
import type { Db } from '@ams/db';

/** Who a request authenticated as: its account, its key and that key's scopes. */
export interface AuthContext {
  accountId: string;
  keyId: string;
  scopes: string[];
  /** A key bound to an agent writes to it by default and reads only its memories. */
  agentId: string | null;
}

/** The database these rules read and write. */
export interface AccountDeps {
  db: Db;
}

/** What checking a presented key takes: the database, the process's logger, and how long a key read may be reused. */
export interface KeyCheckDeps extends AccountDeps {
  logger: Logger;
  /** API_KEY_CACHE_MS: 0 reads every key from the database. */
  apiKeyCacheMs: number;
}
