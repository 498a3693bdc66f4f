import type { Knex } from 'knex';
import { MEMORY_RETURNING, MemoryRow } from './memories.repository';

export const memoryExpiryRepository = {
  /**
   * Soft-deletes up to `limit` live memories whose expires_at has passed, soonest first. Rows
   * another sweeper holds are skipped (SKIP LOCKED), so sweepers in several processes share the work.
   */
  async expireDue(db: Knex, limit: number): Promise<MemoryRow[]> {
    const { rows } = await db.raw(
      `UPDATE memories SET deleted_at = now(), updated_at = now()
        WHERE (account_id, id) IN (
          SELECT account_id, id FROM memories
           WHERE expires_at <= now() AND deleted_at IS NULL
           ORDER BY expires_at
           LIMIT ?
           FOR UPDATE SKIP LOCKED)
        RETURNING ${MEMORY_RETURNING.join(', ')}`,
      [limit],
    );
    return rows as MemoryRow[];
  },

};
