import type { Config, Logger } from '@ams/core';
import type { Database } from '@ams/db';
import type { RedisConnection } from './lib/redis';

/** Everything a request handler may reach; built once per process by server.ts (or a test). */
export interface AppContext {
  config: Config;
  logger: Logger;
  db: Database;
  /** Absent in embedded mode. */
  redis?: RedisConnection;
  /** Reported by health; the embedder itself is wired in by the memories module. */
  embedding?: { provider: string; model: string; dimensions: number };
}

export interface AuthContext {
  accountId: string;
  keyId: string;
  scopes: string[];
  /** A key bound to an agent writes to it by default and reads only its memories. */
  agentId: string | null;
}

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
    auth?: AuthContext;
    /** Why authentication failed, raised by requireAuth after the rate limiter has counted the request. */
    authFailure?: 'missing' | 'invalid' | 'expired' | 'revoked';
  }
}
