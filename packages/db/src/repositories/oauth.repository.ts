import type { Knex } from 'knex';
import { Page, PageParams, paginate } from '../pagination';

export interface OAuthClientRow {
  id: string;
  secret_hash: string | null;
  secret_expires_at: Date | null;
  /** The client's registration (RFC 7591 metadata) as it was accepted. */
  metadata: Record<string, unknown>;
  created_at: Date;
}

/** An authorization request waiting on a person: sign-in (account_id still null), then consent. */
export interface OAuthRequestRow {
  id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scopes: string[];
  state: string | null;
  resource: string;
  browser_hash: string;
  csrf_token: string;
  account_id: string | null;
  expires_at: Date;
  created_at: Date;
}

export interface OAuthGrantRow {
  account_id: string;
  id: string;
  client_id: string;
  scopes: string[];
  agent_id: string | null;
  resource: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

export interface OAuthCodeRow {
  code_hash: string;
  account_id: string;
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: Date;
  used_at: Date | null;
}

type OAuthTokenKind = 'access' | 'refresh';

export interface OAuthTokenRow {
  token_hash: string;
  kind: OAuthTokenKind;
  account_id: string;
  grant_id: string;
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

/** A token with the grant it belongs to: what checking a presented token needs, in one read. */
export interface OAuthTokenWithGrant extends OAuthTokenRow {
  client_id: string;
  scopes: string[];
  agent_id: string | null;
  resource: string;
  grant_revoked_at: Date | null;
  last_used_at: Date | null;
}

export const oauthClientsRepository = {
  async insert(db: Knex, c: { id: string; secretHash: string | null; secretExpiresAt: Date | null; metadata: Record<string, unknown> }): Promise<OAuthClientRow> {
    const [row] = await db('oauth_clients')
      .insert({ id: c.id, secret_hash: c.secretHash, secret_expires_at: c.secretExpiresAt, metadata: JSON.stringify(c.metadata) })
      .returning('*');
    return row as OAuthClientRow;
  },

  async find(db: Knex, id: string): Promise<OAuthClientRow | undefined> {
    return db('oauth_clients').where({ id }).first();
  },
};

export const oauthRequestsRepository = {
  async insert(db: Knex, r: Omit<OAuthRequestRow, 'id' | 'created_at' | 'account_id'>): Promise<OAuthRequestRow> {
    // Requests nobody finished are worth nothing once expired: each new one clears them.
    await db('oauth_requests').where('expires_at', '<', db.fn.now()).delete();
    const [row] = await db('oauth_requests').insert(r).returning('*');
    return row as OAuthRequestRow;
  },

  /** A live request only: an expired one reads as absent. */
  async find(db: Knex, id: string): Promise<OAuthRequestRow | undefined> {
    return db('oauth_requests').where({ id }).where('expires_at', '>', db.fn.now()).first();
  },

  async signedIn(db: Knex, id: string, accountId: string): Promise<void> {
    await db('oauth_requests').where({ id }).update({ account_id: accountId });
  },

  /** Returns the request it removed: of two concurrent answers to one consent, one wins. */
  async take(db: Knex, id: string): Promise<OAuthRequestRow | undefined> {
    const [row] = await db('oauth_requests').where({ id }).where('expires_at', '>', db.fn.now()).delete().returning('*');
    return row as OAuthRequestRow | undefined;
  },
};

export const oauthGrantsRepository = {
  async insert(db: Knex, g: { accountId: string; clientId: string; scopes: string[]; agentId: string | null; resource: string }): Promise<OAuthGrantRow> {
    const [row] = await db('oauth_grants')
      .insert({ account_id: g.accountId, client_id: g.clientId, scopes: g.scopes, agent_id: g.agentId, resource: g.resource })
      .returning('*');
    return row as OAuthGrantRow;
  },

  async find(db: Knex, accountId: string, id: string): Promise<OAuthGrantRow | undefined> {
    return db('oauth_grants').where({ account_id: accountId, id }).first();
  },

  /** The account's live grants, newest first, each with its client's registration. */
  async list(db: Knex, accountId: string, page: PageParams): Promise<Page<OAuthGrantRow & { client_metadata: Record<string, unknown> }>> {
    const query = db('oauth_grants')
      .join('oauth_clients', 'oauth_clients.id', 'oauth_grants.client_id')
      .where('oauth_grants.account_id', accountId)
      .whereNull('oauth_grants.revoked_at')
      .select('oauth_grants.*', 'oauth_clients.metadata as client_metadata');
    return paginate(query, 'oauth_grants', page);
  },

  /** Revokes the grant and every token it issued; returns the grant, or undefined when it was not live. */
  async revoke(db: Knex, accountId: string, id: string, reason: string): Promise<OAuthGrantRow | undefined> {
    return db.transaction(async (trx) => {
      const [row] = await trx('oauth_grants')
        .where({ account_id: accountId, id })
        .whereNull('revoked_at')
        .update({ revoked_at: trx.fn.now(), revoked_reason: reason })
        .returning('*');
      await trx('oauth_tokens').where({ account_id: accountId, grant_id: id }).whereNull('revoked_at').update({ revoked_at: trx.fn.now() });
      return row as OAuthGrantRow | undefined;
    });
  },

  /** Throttled by the caller, as key use is. */
  async touch(db: Knex, accountId: string, id: string): Promise<void> {
    await db('oauth_grants').where({ account_id: accountId, id }).update({ last_used_at: db.fn.now() });
  },
};

export const oauthCodesRepository = {
  async insert(db: Knex, c: Omit<OAuthCodeRow, 'used_at'>): Promise<void> {
    await db('oauth_codes').insert(c);
  },

  /** The one lookup not scoped by account: the token endpoint knows only the code. */
  async findByHash(db: Knex, codeHash: string): Promise<OAuthCodeRow | undefined> {
    return db('oauth_codes').where({ code_hash: codeHash }).first();
  },

  /** Marks the code used; returns it only to the one caller that used it first. */
  async use(db: Knex, codeHash: string): Promise<OAuthCodeRow | undefined> {
    const [row] = await db('oauth_codes').where({ code_hash: codeHash }).whereNull('used_at').update({ used_at: db.fn.now() }).returning('*');
    return row as OAuthCodeRow | undefined;
  },
};

export const oauthTokensRepository = {
  async insert(db: Knex, rows: Array<Omit<OAuthTokenRow, 'revoked_at' | 'created_at'>>): Promise<void> {
    await db('oauth_tokens').insert(rows);
  },

  /** The one lookup not scoped by account: authentication, by the token's hash (its primary key). */
  async findWithGrant(db: Knex, tokenHash: string): Promise<OAuthTokenWithGrant | undefined> {
    return db('oauth_tokens as t')
      .join('oauth_grants as g', function () {
        this.on('g.account_id', 't.account_id').andOn('g.id', 't.grant_id');
      })
      .where('t.token_hash', tokenHash)
      .select('t.*', 'g.client_id', 'g.scopes', 'g.agent_id', 'g.resource', 'g.revoked_at as grant_revoked_at', 'g.last_used_at')
      .first();
  },

  /** Past their expiry a grant's tokens are worth nothing, not even to detect a replay. */
  async deleteExpired(db: Knex, accountId: string, grantId: string): Promise<void> {
    await db('oauth_tokens').where({ account_id: accountId, grant_id: grantId }).where('expires_at', '<', db.fn.now()).delete();
  },

  /** Revokes one live token; returns it only to the caller that revoked it (a refresh token rotates once). */
  async revoke(db: Knex, tokenHash: string): Promise<OAuthTokenRow | undefined> {
    const [row] = await db('oauth_tokens').where({ token_hash: tokenHash }).whereNull('revoked_at').update({ revoked_at: db.fn.now() }).returning('*');
    return row as OAuthTokenRow | undefined;
  },
};

export const signInAttemptsRepository = {
  /**
   * Counts one attempt against `subject` in its current window (a new window once `windowSeconds`
   * have passed since the last began) and returns the count with the window's start: one
   * statement, so a burst of concurrent attempts is counted exactly.
   */
  async hit(db: Knex, subject: string, windowSeconds: number): Promise<{ attempts: number; window_started_at: Date }> {
    const { rows } = await db.raw<{ rows: Array<{ attempts: number; window_started_at: Date }> }>(
      `INSERT INTO oauth_sign_in_attempts AS a (subject, attempts, window_started_at) VALUES (?, 1, now())
       ON CONFLICT (subject) DO UPDATE SET
         attempts = CASE WHEN a.window_started_at <= now() - make_interval(secs => ?) THEN 1 ELSE a.attempts + 1 END,
         window_started_at = CASE WHEN a.window_started_at <= now() - make_interval(secs => ?) THEN now() ELSE a.window_started_at END
       RETURNING attempts, window_started_at`,
      [subject, windowSeconds, windowSeconds],
    );
    return rows[0]!;
  },

  /** Counts whose window ended long ago say nothing any more: the table holds only recent attempts. */
  async sweep(db: Knex, olderThanSeconds: number): Promise<void> {
    await db('oauth_sign_in_attempts').whereRaw('window_started_at < now() - make_interval(secs => ?)', [olderThanSeconds]).delete();
  },

  async clear(db: Knex, subject: string): Promise<void> {
    await db('oauth_sign_in_attempts').where({ subject }).delete();
  },
};
