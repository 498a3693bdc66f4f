import type { AuthContext } from '@ams/accounts';
import type { Logger } from '@ams/core';
import type { ApiContext } from '@ams/runtime';

/** Everything a request handler may reach: the API process's context, built by @ams/runtime's start(). */
export type AppContext = ApiContext;

export type { AuthContext };

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
    /** The process logger's child carrying request_id (and account_id once authenticated): pass it to services. */
    log: Logger;
    auth?: AuthContext;
    /** Why authentication failed, raised by requireAuth after the rate limiter has counted the request. */
    authFailure?: 'missing' | 'invalid' | 'expired' | 'revoked';
  }
}
