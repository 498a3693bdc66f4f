import type { Knex } from 'knex';
import { claimAcrossAccounts } from './fair-claim';

export interface WebhookRow {
  account_id: string;
  id: string;
  url: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  description: string | null;
  /** Plaintext, from before secrets were sealed: emptied by sealWebhookSecrets(). */
  secret: string | null;
  /** SecretBox.seal(secret, account_id). */
  secret_sealed: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface WebhookFields {
  url?: string;
  eventTypes?: string[];
  enabled?: boolean;
  description?: string | null;
  /** Plaintext: only tests and benches that insert rows as an older version did. */
  secret?: string | null;
  secretSealed?: string | null;
}

export const webhooksRepository = {
  async insert(db: Knex, accountId: string, w: WebhookFields & { url: string }): Promise<WebhookRow> {
    const [row] = await db('webhooks')
      .insert({ account_id: accountId, url: w.url, event_types: w.eventTypes ?? [], description: w.description ?? null, secret: w.secret ?? null, secret_sealed: w.secretSealed ?? null })
      .returning('*');
    return row as WebhookRow;
  },

  async find(db: Knex, accountId: string, id: string): Promise<WebhookRow | undefined> {
    return db('webhooks').where({ account_id: accountId, id }).first();
  },

  /** The spec's webhook list has no pagination: `data` and `total`. */
  async listAll(db: Knex, accountId: string): Promise<WebhookRow[]> {
    return db('webhooks').where({ account_id: accountId }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  },

  /** Re-enabling clears the reason it was disabled. */
  async update(db: Knex, accountId: string, id: string, w: WebhookFields & { disabledReason?: string | null }): Promise<WebhookRow | undefined> {
    const set: Record<string, unknown> = { updated_at: db.fn.now() };
    if (w.url !== undefined) set.url = w.url;
    if (w.eventTypes !== undefined) set.event_types = w.eventTypes;
    if (w.description !== undefined) set.description = w.description;
    if (w.secret !== undefined) set.secret = w.secret;
    // A new sealed secret replaces whatever plaintext an older version left.
    if (w.secretSealed !== undefined) Object.assign(set, { secret_sealed: w.secretSealed, secret: null });
    if (w.enabled !== undefined) {
      set.enabled = w.enabled;
      set.disabled_reason = w.enabled ? null : (w.disabledReason ?? null);
    }
    const [row] = await db('webhooks').where({ account_id: accountId, id }).update(set).returning('*');
    return row as WebhookRow | undefined;
  },

  /**
   * Maintenance across accounts (start-up sealing): rows with a plaintext secret or one sealed by a
   * key other than `currentKeyId`, oldest first, locked against a concurrent start-up. Locked
   * account by account (claimAcrossAccounts): Citus refuses a locking read spanning shards.
   */
  async lockSecretsToSeal(trx: Knex.Transaction, currentKeyId: string, limit: number): Promise<WebhookRow[]> {
    const toSeal = (q: Knex.QueryBuilder) =>
      q.where((w) => w.whereNotNull('secret').orWhere((s) => s.whereNotNull('secret_sealed').whereRaw(`split_part(secret_sealed, ':', 2) <> ?`, [currentKeyId])));
    return claimAcrossAccounts(
      limit,
      async (n) => (await toSeal(trx('webhooks')).groupBy('account_id').orderByRaw('min(created_at)').limit(n).pluck('account_id')) as string[],
      (accountId, n) => toSeal(trx('webhooks').where('account_id', accountId)).orderBy('created_at').limit(n).forUpdate().skipLocked() as Promise<WebhookRow[]>,
    );
  },

  async setSealedSecret(db: Knex, accountId: string, id: string, sealed: string): Promise<void> {
    await db('webhooks').where({ account_id: accountId, id }).update({ secret_sealed: sealed, secret: null });
  },

  /**
   * Deliveries go with it (ON DELETE CASCADE). Decided by the returned rows, not a row count: under
   * PGlite (knex-pglite) del() answers no count.
   */
  async delete(db: Knex, accountId: string, id: string): Promise<boolean> {
    return (await db('webhooks').where({ account_id: accountId, id }).del().returning('id')).length > 0;
  },
};
