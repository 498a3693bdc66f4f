import type { Knex } from 'knex';
import { parseLsn, type Lsn, type WalLayout } from '../replicas/lsn';

/** The WAL positions the read-replica routing compares (packages/db/src/replicas). */
export const replicationRepository = {
  /**
   * The primary's WAL insert position: past every record of every transaction committed before
   * the call, even one that committed without waiting for its flush (synchronous_commit off), which
   * pg_current_wal_lsn() (the write position) may not have reached yet.
   */
  async insertPosition(primary: Knex): Promise<Lsn> {
    const { rows } = await primary.raw<{ rows: Array<{ lsn: string }> }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
    return parseLsn(rows[0]!.lsn);
  },

  async walLayout(primary: Knex): Promise<WalLayout> {
    const { rows } = await primary.raw<{ rows: Array<{ block: string; segment: string }> }>(
      "SELECT current_setting('wal_block_size') AS block, pg_size_bytes(current_setting('wal_segment_size'))::text AS segment",
    );
    return { blockSize: Number(rows[0]!.block), segmentSize: Number(rows[0]!.segment) };
  },

  /** Whether the server is a standby, and the end of the WAL it has replayed (null on a primary). */
  async standbyReplay(replica: Knex): Promise<{ standby: boolean; replayed: Lsn | null }> {
    const { rows } = await replica.raw<{ rows: Array<{ standby: boolean; replayed: string | null }> }>(
      'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed',
    );
    const row = rows[0]!;
    return { standby: row.standby, replayed: row.replayed === null ? null : parseLsn(row.replayed) };
  },
};
