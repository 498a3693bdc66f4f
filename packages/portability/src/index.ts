// An account's data in and out: the export stream (NDJSON records, a Markdown view) and the import
// that reads it back in batches, as jobs.
export * from './deps';
export * from './export/export.service';
export * from './export/markdown';
export * from './import/record-rules';
export * from './import/import-port';
export * from './import/ndjson-lines';
export * from './import/import.service';
export * from './import/import-jobs';
