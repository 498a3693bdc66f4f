import fs from 'node:fs';
import { Readable } from 'node:stream';
import { Command, Option } from 'commander';
import type { ImportJob } from '@agent-memory/client';
import { apiError, streamingFetch } from '../api-response';
import { clientFor, globalsOf, print, requireKey, usageError } from '../cli-context';
import { EXIT } from '../exit-codes';
import { ByteProgress, formatBytes } from '../progress';

/** How often a running job is asked for its progress. */
const POLL_MS = 500;

/** The file as a stream and its size, or a usage error; `-` is stdin (size unknown). */
async function openSource(file: string): Promise<{ stream: Readable; size?: number }> {
  if (file === '-') return { stream: process.stdin };
  try {
    const handle = await fs.promises.open(file, 'r');
    return { stream: handle.createReadStream(), size: (await handle.stat()).size };
  } catch (err) {
    throw usageError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

type Counts = { created: number; updated: number; skipped: number; failed: number };

function humanResult(r: ImportJob, sent: string): string {
  const rows = Object.entries(r.counts as Record<string, Counts>).map(([type, c]) => `${type.padEnd(18)} ${[c.created, c.updated, c.skipped, c.failed].map((n) => String(n).padStart(8)).join('')}`);
  const errors = r.errors.map((e) => `  line ${e.line}${e.type ? ` (${e.type})` : ''}: ${e.message}`);
  const more = r.error_count > r.errors.length ? [`  … and ${r.error_count - r.errors.length} more`] : [];
  const { read, stored, skipped, failed } = r.records;
  return [
    `${r.status === 'completed' ? 'imported' : 'import failed after'} ${r.lines} lines (${sent}; job ${r.id})`,
    ...(r.failure ? [r.failure] : []),
    `records: ${read} read, ${stored} stored, ${skipped} skipped, ${failed} failed`,
    `${'type'.padEnd(18)}${['created', 'updated', 'skipped', 'failed'].map((h) => h.padStart(8)).join('')}`,
    ...rows,
    `re-embedded: ${r.reembedded}`,
    `failed lines: ${r.error_count}`,
    ...errors,
    ...more,
  ].join('\n');
}

/** Asks for the job until it has ended; on a terminal, its settled lines on stderr as it goes. */
async function follow(cmd: Command, first: ImportJob): Promise<ImportJob> {
  const client = clientFor(cmd);
  const tty = process.stderr.isTTY && !globalsOf(cmd).json;
  let job = first;
  while (job.status === 'running') {
    await new Promise((r) => setTimeout(r, POLL_MS));
    job = await client.imports.job(job.id);
    if (tty) process.stderr.write(`\rimport ${job.id}: ${job.lines} lines settled, ${job.records.stored} stored, ${job.records.skipped} skipped, ${job.records.failed} failed`);
  }
  if (tty) process.stderr.write('\n');
  return job;
}

export function registerImportCommand(program: Command): void {
  program
    .command('import <file>')
    .description('import an export (POST /v1/import, admin key): an NDJSON file, or - for stdin; follows the job to its end and prints its counts. Exits 4 when some lines failed, 1 when the job failed (send the file again to finish it: stored records are skipped)')
    .addOption(new Option('--on-conflict <mode>', 'an id or natural key the account already holds: skip it or overwrite it').choices(['skip', 'overwrite']).default('skip'))
    .action(async (file: string, o: { onConflict: 'skip' | 'overwrite' }, cmd: Command) => {
      const key = requireKey(cmd);
      const source = await openSource(file);
      const progress = new ByteProgress('import', source.size);
      source.stream.on('error', (err) => progress.destroy(err));
      let res: Response;
      try {
        res = await streamingFetch(globalsOf(cmd).url, `/v1/import?on_conflict=${o.onConflict}`, key, {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson' },
          body: Readable.toWeb(source.stream.pipe(progress)) as ReadableStream,
          duplex: 'half',
        });
      } finally {
        progress.stop();
      }
      if (!res.ok) throw await apiError(res);
      const result = await follow(cmd, (await res.json()) as ImportJob);
      print(cmd, result, (r) => humanResult(r, `${formatBytes(progress.bytes)} sent at ${formatBytes(progress.rate)}/s`));
      if (result.status === 'failed') process.exitCode = EXIT.apiError;
      else if (result.error_count > 0) process.exitCode = EXIT.partial;
    });
}
