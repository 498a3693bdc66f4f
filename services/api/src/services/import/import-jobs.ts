import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { ApiError } from '@ams/core';
import { ImportJobRow, importJobsRepository } from '@ams/db';
import type { AppContext } from '../../context';
import type { ImportJobsPort, ImportOptions } from './import-port';
import { runImport } from './import.service';
import { ndjsonLines } from './ndjson-lines';

export const MAX_IMPORT_LINE_BYTES = 2 * 1024 * 1024;

const STOPPED = 'The API stopped during the import. Every line up to `lines` is settled as counted (stored, skipped or failed) and nothing else was stored; send the same file again to finish: records already stored are skipped.';
const FAILED = 'The import stopped on an internal error. Every line up to `lines` is settled as counted and nothing else was stored; send the same file again to finish: records already stored are skipped.';

/** The job as the API shows it. */
export function presentImportJob(row: ImportJobRow) {
  return {
    object: 'import_job' as const,
    id: row.id,
    status: row.status,
    on_conflict: row.on_conflict,
    lines: row.lines,
    records: { read: row.records_read, stored: row.records_stored, skipped: row.records_skipped, failed: row.records_failed },
    counts: row.counts,
    reembedded: row.reembedded,
    error_count: row.error_count,
    errors: row.errors,
    failure: row.failure,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    finished_at: row.finished_at ? new Date(row.finished_at).toISOString() : null,
  };
}

/**
 * This process's import jobs: the upload is spooled to a private temporary file, the job row is
 * created, and the file is imported in the background (runImport). The job's heartbeat says the
 * process is alive; a running job without one for IMPORT_STALE_AFTER_MS is reported failed with
 * the counts of its last committed batch (exact: rows and counters commit together).
 */
export class ImportJobs implements ImportJobsPort {
  private readonly running = new Map<string, { stop: AbortController; done: Promise<void> }>();

  constructor(private readonly ctx: AppContext) {}

  async start(accountId: string, body: Readable, q: ImportOptions): Promise<ImportJobRow> {
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ams-import-'));
    const file = path.join(dir, `${crypto.randomUUID()}.ndjson`);
    let job: ImportJobRow;
    try {
      await pipeline(body, fs.createWriteStream(file, { mode: 0o600 }));
      job = await importJobsRepository.insert(this.ctx.db.knex, accountId, q.on_conflict);
    } catch (err) {
      await fs.promises.rm(dir, { recursive: true, force: true });
      throw err;
    }
    const stop = new AbortController();
    const done = this.run(job, file, q, stop.signal).finally(async () => {
      this.running.delete(job.id);
      await fs.promises.rm(dir, { recursive: true, force: true });
    });
    this.running.set(job.id, { stop, done });
    return job;
  }

  private async run(job: ImportJobRow, file: string, q: ImportOptions, signal: AbortSignal): Promise<void> {
    const { knex } = this.ctx.db;
    const log = this.ctx.logger.child({ account_id: job.account_id, import_job: job.id });
    const beat = setInterval(() => void importJobsRepository.heartbeat(knex, job.account_id, job.id).catch(() => undefined), Math.max(1000, this.ctx.config.importStaleAfterMs / 3));
    beat.unref();
    try {
      const result = await runImport(this.ctx, { accountId: job.account_id, jobId: job.id, signal }, ndjsonLines(fs.createReadStream(file), MAX_IMPORT_LINE_BYTES), q);
      log.info('import completed', { lines: result.lines, stored: result.stored, skipped: result.skipped, failed: result.failed });
    } catch (err) {
      const stopped = signal.aborted;
      if (!stopped) log.error('import failed', { error: (err as Error).message, stack: (err as Error).stack });
      await importJobsRepository.finish(knex, job.account_id, job.id, 'failed', stopped ? STOPPED : FAILED).catch((e: Error) => log.error('could not mark the import failed', { error: e.message }));
    } finally {
      clearInterval(beat);
    }
  }

  /** The job, or 404; a running job of a process that stopped is reported (and recorded) failed. */
  async get(accountId: string, id: string): Promise<ImportJobRow> {
    const { knex } = this.ctx.db;
    let job = await importJobsRepository.find(knex, accountId, id);
    if (!job) throw ApiError.notFound('Import job');
    if (job.status === 'running' && !this.running.has(id)) {
      const cutoff = new Date(Date.now() - this.ctx.config.importStaleAfterMs);
      if (new Date(job.heartbeat_at) < cutoff) {
        await importJobsRepository.failIfStale(knex, accountId, id, cutoff, STOPPED);
        job = (await importJobsRepository.find(knex, accountId, id))!;
      }
    }
    return job;
  }

  /** Stops every running job after the batch it is writing; they end failed with exact counts. */
  async close(): Promise<void> {
    for (const { stop } of this.running.values()) stop.abort(new Error('stopping'));
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  /** Resolves when the job has ended in this process (tests, shutdown). */
  async settled(id: string): Promise<void> {
    await this.running.get(id)?.done;
  }
}
