import fs from 'node:fs';
import { Readable } from 'node:stream';
import { Command, Option } from 'commander';
import { apiError, streamingFetch } from '../api-response';
import { globalsOf, print, requireKey, usageError } from '../cli-context';
import { EXIT } from '../exit-codes';
import { ByteProgress, formatBytes } from '../progress';

interface ImportResult {
  lines: number;
  counts: Record<string, { created: number; updated: number; skipped: number; failed: number }>;
  reembedded: number;
  error_count: number;
  errors: Array<{ line: number; type?: string; message: string }>;
}

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

function humanResult(r: ImportResult, sent: string): string {
  const rows = Object.entries(r.counts).map(([type, c]) => `${type.padEnd(18)} ${[c.created, c.updated, c.skipped, c.failed].map((n) => String(n).padStart(8)).join('')}`);
  const errors = r.errors.map((e) => `  line ${e.line}${e.type ? ` (${e.type})` : ''}: ${e.message}`);
  const more = r.error_count > r.errors.length ? [`  … and ${r.error_count - r.errors.length} more`] : [];
  return [
    `imported ${r.lines} lines (${sent})`,
    `${'type'.padEnd(18)}${['created', 'updated', 'skipped', 'failed'].map((h) => h.padStart(8)).join('')}`,
    ...rows,
    `re-embedded: ${r.reembedded}`,
    `failed lines: ${r.error_count}`,
    ...errors,
    ...more,
  ].join('\n');
}

export function registerImportCommand(program: Command): void {
  program
    .command('import <file>')
    .description('import an export (POST /v1/import, admin key): an NDJSON file, or - for stdin. Exits 4 when some lines failed')
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
      const result = (await res.json()) as ImportResult;
      print(cmd, result, (r) => humanResult(r, `${formatBytes(progress.bytes)}, ${formatBytes(progress.rate)}/s`));
      if (result.error_count > 0) process.exitCode = EXIT.partial;
    });
}
