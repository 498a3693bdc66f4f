import type { Knex } from 'knex';

export type ImportJobStatus = 'running' | 'completed' | 'failed';

export interface ImportLineError {
  line: number;
  type?: string;
  field?: string;
  message: string;
}

/** A job's settled state: everything counted here was committed with the rows it counts. */
export interface ImportProgress {
  lines: number;
  read: number;
  stored: number;
  skipped: number;
  failed: number;
  reembedded: number;
  counts: Record<string, { created: number; updated: number; skipped: number; failed: number }>;
  errorCount: number;
  errors: ImportLineError[];
}

export interface ImportJobRow {
  account_id: string;
  id: string;
  status: ImportJobStatus;
  on_conflict: 'skip' | 'overwrite';
  lines: number;
  records_read: number;
  records_stored: number;
  records_skipped: number;
  records_failed: number;
  reembedded: number;
  counts: ImportProgress['counts'];
  error_count: number;
  errors: ImportLineError[];
  failure: string | null;
  heartbeat_at: Date;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

const columns = (p: ImportProgress) => ({
  lines: p.lines,
  records_read: p.read,
  records_stored: p.stored,
  records_skipped: p.skipped,
  records_failed: p.failed,
  reembedded: p.reembedded,
  counts: JSON.stringify(p.counts),
  error_count: p.errorCount,
  errors: JSON.stringify(p.errors),
});

export const importJobsRepository = {
  async insert(db: Knex, accountId: string, onConflict: 'skip' | 'overwrite'): Promise<ImportJobRow> {
    const [row] = await db('import_jobs').insert({ account_id: accountId, on_conflict: onConflict }).returning('*');
    return row as ImportJobRow;
  },

  async find(db: Knex, accountId: string, id: string): Promise<ImportJobRow | undefined> {
    return db('import_jobs').where({ account_id: accountId, id }).first();
  },

  /** The progress after a batch: called in the batch's own transaction. */
  async saveProgress(db: Knex, accountId: string, id: string, p: ImportProgress): Promise<void> {
    await db('import_jobs')
      .where({ account_id: accountId, id, status: 'running' })
      .update({ ...columns(p), heartbeat_at: db.fn.now(), updated_at: db.fn.now() });
  },

  async heartbeat(db: Knex, accountId: string, id: string): Promise<void> {
    await db('import_jobs').where({ account_id: accountId, id, status: 'running' }).update({ heartbeat_at: db.fn.now() });
  },

  /** Ends a running job; its counters stay those of the last committed batch unless `p` is given (in the final transaction). */
  async finish(db: Knex, accountId: string, id: string, status: Exclude<ImportJobStatus, 'running'>, failure: string | null, p?: ImportProgress): Promise<void> {
    await db('import_jobs')
      .where({ account_id: accountId, id, status: 'running' })
      .update({ ...(p ? columns(p) : {}), status, failure, finished_at: db.fn.now(), updated_at: db.fn.now() });
  },

  /** A running job whose process stopped sending heartbeats before `cutoff`: failed, with the counts it has. */
  async failIfStale(db: Knex, accountId: string, id: string, cutoff: Date, failure: string): Promise<void> {
    await db('import_jobs')
      .where({ account_id: accountId, id, status: 'running' })
      .where('heartbeat_at', '<', cutoff)
      .update({ status: 'failed', failure, finished_at: db.fn.now(), updated_at: db.fn.now() });
  },

  /**
   * failIfStale for every account at once, except the jobs `except` names (the sweeping process's
   * own): the sweep of jobs whose process died spans accounts on purpose. Returns the jobs failed.
   */
  async failAllStale(db: Knex, cutoff: Date, failure: string, except: string[]): Promise<Array<{ account_id: string; id: string }>> {
    return db('import_jobs')
      .where('status', 'running')
      .where('heartbeat_at', '<', cutoff)
      .whereNotIn('id', except)
      .update({ status: 'failed', failure, finished_at: db.fn.now(), updated_at: db.fn.now() })
      .returning(['account_id', 'id']);
  },
};
