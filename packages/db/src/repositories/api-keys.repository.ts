import type { Knex } from 'knex';
import { Page, PageParams, paginate } from '../pagination';

export interface ApiKeyRow {
  account_id: string;
  id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  scopes: string[];
  agent_id: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}

export interface NewApiKey {
  accountId: string;
  name: string;
  keyHash: string;
  keyPrefix: string;
  scopes: string[];
  agentId?: string | null;
  expiresAt?: Date | null;
}

export const apiKeysRepository = {
  async insert(db: Knex, k: NewApiKey): Promise<ApiKeyRow> {
    const [row] = await db('api_keys')
      .insert({
        account_id: k.accountId,
        name: k.name,
        key_hash: k.keyHash,
        key_prefix: k.keyPrefix,
        scopes: k.scopes,
        agent_id: k.agentId ?? null,
        expires_at: k.expiresAt ?? null,
      })
      .returning('*');
    return row as ApiKeyRow;
  },

  /** The one lookup not scoped by account: authentication, by the unique key_hash index. */
  async findByHash(db: Knex, keyHash: string): Promise<ApiKeyRow | undefined> {
    return db('api_keys').where({ key_hash: keyHash }).first();
  },

  async list(db: Knex, accountId: string, page: PageParams): Promise<Page<ApiKeyRow>> {
    return paginate<ApiKeyRow>(db('api_keys').where('api_keys.account_id', accountId), 'api_keys', page);
  },

  /** Returns the revoked row, or undefined when the account has no such live key. */
  async revoke(db: Knex, accountId: string, id: string): Promise<ApiKeyRow | undefined> {
    const [row] = await db('api_keys')
      .where({ account_id: accountId, id })
      .whereNull('revoked_at')
      .update({ revoked_at: db.fn.now() })
      .returning('*');
    return row as ApiKeyRow | undefined;
  },

  /** Throttled by the caller: one write per key per minute, not one per request. */
  async touch(db: Knex, accountId: string, id: string): Promise<void> {
    await db('api_keys').where({ account_id: accountId, id }).update({ last_used_at: db.fn.now() });
  },
};
