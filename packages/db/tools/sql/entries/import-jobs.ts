import { importJobsRepository, type ImportProgress } from '../../../src/repositories/import-jobs.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AT, IMPORT_JOB } from '../fixtures';

const PROGRESS: ImportProgress = {
  lines: 120, read: 118, stored: 110, skipped: 6, failed: 2, reembedded: 0,
  counts: { memory: { created: 100, updated: 10, skipped: 6, failed: 2 } }, errorCount: 2,
  errors: [{ line: 7, type: 'memory', field: 'content', message: 'content is required' }],
};

export const importJobs = entriesOf('importJobsRepository', importJobsRepository, {
  insert: [{ args: [ACCOUNT, 'skip'] }],
  find: [{ args: [ACCOUNT, IMPORT_JOB] }],
  saveProgress: [{ args: [ACCOUNT, IMPORT_JOB, PROGRESS] }],
  heartbeat: [{ args: [ACCOUNT, IMPORT_JOB] }],
  finish: [{ args: [ACCOUNT, IMPORT_JOB, 'completed', null, PROGRESS] }],
  failIfStale: [{ args: [ACCOUNT, IMPORT_JOB, AT, 'the importing process stopped'] }],
  failAllStale: [{ args: [AT, 'the importing process stopped', [IMPORT_JOB]] }],
});
