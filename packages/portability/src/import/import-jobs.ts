import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { ApiError, periodic, type PeriodicTask } from '@ams/core';
import { ImportJobRow, importJobsRepository } from '@ams/db';
import type { ImportJobsDeps } from '../deps';
import type { ImportJobsPort, ImportOptions } from './import-port';
import { runImport } from './import.service';
import { ndjsonLines } from './ndjson-lines';

const MAX_IMPORT_LINE_BYTES = 2 * 1024 * 1024;

const STOPPED = 'The API stopped during the import. Every line up to `lines` is settled as counted (stored, skipped or failed) and nothing else was stored; send the same file again to finish: records already stored are skipped.';
const FAILED = 'The import stopped on an internal error. Every line up to `lines` is settled as counted and nothing else was stored; send the same file again to finish: records already stored are skipped.';

const tooLarge = (maxBytes: number) =>
  new ApiError('payload_too_large', `Import upload over IMPORT_MAX_BYTES (${maxBytes} bytes): split the file and send each part (records already stored are skipped)`);

/** Passes the upload through, failing with 413 once it has passed `maxBytes`: the spool never outgrows it. */
function byteLimit(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > maxBytes ? tooLarge(maxBytes) : null, chunk);
    },
  });
}

/** Spool directories carry their process's id, so a later process can tell a dead one's leftovers. */
const SPOOL_PREFIX = 'ams-import-';
const spoolOwner = (name: string) => Number(/^ams-import-(\d+)-/.exec(name)?.[1] ?? NaN);

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Deletes the spools of processes that are gone (killed mid-import: nothing else could). A live
 * process's spools, this one's included, are left to it.
 */
export async function removeOrphanSpools(tmpDir = os.tmpdir()): Promise<string[]> {
  const orphans = (await fs.promises.readdir(tmpDir)).filter((name) => {
    const pid = spoolOwner(name);
    return Number.isInteger(pid) && pid !== process.pid && !processAlive(pid);
  });
  await Promise.all(orphans.map((name) => fs.promises.rm(path.join(tmpDir, name), { recursive: true, force: true })));
  return orphans;
}

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
 * the counts of its last committed batch (exact: rows and counters commit together): on the first
 * GET after that, or by the sweep (`startSweeping`), whichever comes first. The spool is deleted
 * when the job ends, refused or not; a killed process's spool by the next process to start.
 */
export class ImportJobs implements ImportJobsPort {
  private readonly running = new Map<string, { stop: AbortController; done: Promise<void> }>();
  private sweeper?: PeriodicTask;

  constructor(private readonly deps: ImportJobsDeps) {}

  async start(accountId: string, body: Readable & { headers?: Record<string, unknown> }, q: ImportOptions): Promise<ImportJobRow> {
    const { maxBytes: importMaxBytes } = this.deps;
    // A declared length over the limit is refused before a byte is spooled.
    if (Number(body.headers?.['content-length'] ?? 0) > importMaxBytes) throw tooLarge(importMaxBytes);
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), `${SPOOL_PREFIX}${process.pid}-`));
    const file = path.join(dir, `${crypto.randomUUID()}.ndjson`);
    let job: ImportJobRow;
    try {
      // The request is piped, not part of the pipeline: a refusal must not destroy its socket before the 413 goes out.
      const upload = body.pipe(new PassThrough());
      // pipe() forwards no error: a client that goes away mid-upload must still end the spool.
      body.once('close', () => body.readableEnded || upload.destroy(new ApiError('bad_request', 'The upload ended before its last byte')));
      await pipeline(upload, byteLimit(importMaxBytes), fs.createWriteStream(file, { mode: 0o600 })).catch((err: unknown) => {
        body.unpipe(upload);
        body.resume();
        throw err;
      });
      job = await importJobsRepository.insert(this.deps.db, accountId, q.on_conflict);
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
    const knex = this.deps.db;
    const log = this.deps.logger.child({ account_id: job.account_id, import_job: job.id });
    const beat = periodic({ name: 'import job heartbeat', intervalMs: Math.max(1000, this.deps.staleAfterMs / 3), logger: log, runAtStart: false }, () =>
      importJobsRepository.heartbeat(knex, job.account_id, job.id),
    );
    try {
      const result = await runImport(this.deps, { accountId: job.account_id, jobId: job.id, signal }, ndjsonLines(fs.createReadStream(file), MAX_IMPORT_LINE_BYTES), q);
      log.info('import completed', { lines: result.lines, stored: result.stored, skipped: result.skipped, failed: result.failed });
    } catch (err) {
      const stopped = signal.aborted;
      if (!stopped) log.error('import failed', { error: (err as Error).message, stack: (err as Error).stack });
      await importJobsRepository.finish(knex, job.account_id, job.id, 'failed', stopped ? STOPPED : FAILED).catch((e: Error) => log.error('could not mark the import failed', { error: e.message }));
    } finally {
      await beat.stop();
    }
  }

  /** The job, or 404; a running job of a process that stopped is reported (and recorded) failed. */
  async get(accountId: string, id: string): Promise<ImportJobRow> {
    const knex = this.deps.db;
    let job = await importJobsRepository.find(knex, accountId, id);
    if (!job) throw ApiError.notFound('Import job');
    if (job.status === 'running' && !this.running.has(id)) {
      const cutoff = new Date(Date.now() - this.deps.staleAfterMs);
      if (new Date(job.heartbeat_at) < cutoff) {
        await importJobsRepository.failIfStale(knex, accountId, id, cutoff, STOPPED);
        job = (await importJobsRepository.find(knex, accountId, id))!;
      }
    }
    return job;
  }

  /**
   * A process that dies mid-import leaves its job running: fail such jobs at once (a restart
   * ends what the dead process left, once stale) and then every IMPORT_STALE_AFTER_MS, so a dead
   * job reads failed within twice that without anyone reading it. Every API process sweeps; the
   * update is idempotent, and this process's own jobs are left to it.
   */
  startSweeping(): void {
    if (this.sweeper) return;
    void removeOrphanSpools().then(
      (gone) => gone.length && this.deps.logger.info('removed the import spools of stopped processes', { spools: gone }),
      (err: Error) => this.deps.logger.warn('could not look for stale import spools', { error: err.message }),
    );
    this.sweeper = periodic({ name: 'import job sweep', intervalMs: this.deps.staleAfterMs, logger: this.deps.logger }, () => this.failStale());
  }

  async failStale(): Promise<string[]> {
    const cutoff = new Date(Date.now() - this.deps.staleAfterMs);
    const failed = (await importJobsRepository.failAllStale(this.deps.db, cutoff, STOPPED, [...this.running.keys()])).map((j) => j.id);
    if (failed.length) this.deps.logger.warn('import jobs failed: their process stopped mid-import', { import_jobs: failed });
    return failed;
  }

  /** Stops every running job after the batch it is writing; they end failed with exact counts. */
  async close(): Promise<void> {
    await this.sweeper?.stop();
    for (const { stop } of this.running.values()) stop.abort(new Error('stopping'));
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  /** Resolves when the job has ended in this process (tests, shutdown). */
  async settled(id: string): Promise<void> {
    await this.running.get(id)?.done;
  }
}
