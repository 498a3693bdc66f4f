import type { Knex } from 'knex';
import { claimAcrossAccounts } from './fair-claim';
import { MEMORY_RETURNING, MemoryRow } from './memories.repository';

export const memoryExpiryRepository = {
  /**
   * Soft-deletes up to `limit` live memories whose expires_at has passed, soonest first. Rows
   * another sweeper holds are skipped (SKIP LOCKED), so sweepers in several processes share the work.
   * Account by account (claimAcrossAccounts): Citus refuses a FOR UPDATE spanning shards, and one
   * account's mass expiry never holds back another's.
   */
  async expireDue(db: Knex, limit: number): Promise<MemoryRow[]> {
    return claimAcrossAccounts(
      limit,
      async (n) => {
        const { rows } = await db.raw(
          `SELECT account_id FROM memories WHERE expires_at <= now() AND deleted_at IS NULL
            GROUP BY account_id ORDER BY min(expires_at) LIMIT ?`,
          [n],
        );
        return (rows as Array<{ account_id: string }>).map((r) => r.account_id);
      },
      async (accountId, n) => {
        const { rows } = await db.raw(
          `UPDATE memories SET deleted_at = now(), updated_at = now()
            WHERE account_id = ? AND (account_id, id) IN (
              SELECT account_id, id FROM memories
               WHERE account_id = ? AND expires_at <= now() AND deleted_at IS NULL
               ORDER BY expires_at
               LIMIT ?
               FOR UPDATE SKIP LOCKED)
            RETURNING ${MEMORY_RETURNING.join(', ')}`,
          [accountId, accountId, n],
        );
        return rows as MemoryRow[];
      },
    );
  },

};
