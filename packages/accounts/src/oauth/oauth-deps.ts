import type { AccountDeps } from '../deps';

/** What an OAuth event carries to the log and the metrics: its name and who it concerns. */
type OAuthEvent =
  | 'client_registered'
  | 'authorization_started'
  | 'sign_in_succeeded'
  | 'sign_in_failed'
  | 'sign_in_throttled'
  | 'consent_approved'
  | 'consent_denied'
  | 'code_exchanged'
  | 'code_replayed'
  | 'token_refreshed'
  | 'refresh_token_replayed'
  | 'token_revoked'
  | 'grant_revoked'
  | 'token_refused';

interface OAuthSettings {
  /** This server's MCP endpoint: the one resource its tokens are for (RFC 8707). */
  resource: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  signIn: { perAccount: number; lockoutSeconds: number; perAddress: number; addressWindowSeconds: number };
}

export interface OAuthDeps extends AccountDeps {
  oauth: OAuthSettings;
  /** Logs and counts each event; never throws. */
  event(name: OAuthEvent, fields: Record<string, unknown>): void;
}

/** A refusal the OAuth endpoints answer with its RFC 6749 error code. */
export class OAuthRefusal extends Error {
  constructor(
    readonly code: 'invalid_grant' | 'invalid_target' | 'invalid_scope' | 'invalid_request' | 'invalid_client',
    message: string,
  ) {
    super(message);
    this.name = 'OAuthRefusal';
  }
}
