import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Command, Option } from 'commander';
import { apiError, streamingFetch } from '../api-response';
import { globalsOf, print, requireKey, usageError } from '../cli-context';
import { ByteProgress, formatBytes } from '../progress';

interface ExportOptions {
  output?: string;
  format: 'ndjson' | 'markdown';
  agent?: string;
  project?: string;
  createdAfter?: string;
  createdBefore?: string;
  includeVectors?: boolean;
}

/** The export's query string: the filters given, in the API's names. */
function exportQuery(o: ExportOptions): URLSearchParams {
  const q = new URLSearchParams({ format: o.format });
  if (o.agent) q.set('agent', o.agent);
  if (o.project) q.set('project', o.project);
  if (o.createdAfter) q.set('created_after', o.createdAfter);
  if (o.createdBefore) q.set('created_before', o.createdBefore);
  if (o.includeVectors) q.set('include_vectors', 'true');
  return q;
}

/** Opens `<file>.partial` (renamed over `file` once the export is whole), or a usage error. */
async function openPartial(file: string): Promise<{ stream: fs.WriteStream; partial: string }> {
  const partial = `${file}.partial`;
  try {
    const handle = await fs.promises.open(partial, 'w');
    return { stream: handle.createWriteStream(), partial };
  } catch (err) {
    throw usageError(`cannot write ${file}: ${(err as Error).message}`);
  }
}

export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description('stream the account (GET /v1/export, admin key) to a file or stdout')
    .option('-o, --output <file>', 'write to this file (default: stdout); written whole or not at all')
    .addOption(new Option('--format <format>', 'ndjson: every record, for ams import; markdown: the memories, for people').choices(['ndjson', 'markdown']).default('ndjson'))
    .option('--agent <agent>', "only this agent's records (id or name)")
    .option('--project <slug>', "only this project's records")
    .option('--created-after <iso>', 'records created after this time (ISO 8601)')
    .option('--created-before <iso>', 'records created before this time (ISO 8601)')
    .option('--include-vectors', 'add embeddings (an import of the same model then skips re-embedding)')
    .action(async (o: ExportOptions, cmd: Command) => {
      const res = await streamingFetch(globalsOf(cmd).url, `/v1/export?${exportQuery(o)}`, requireKey(cmd));
      if (!res.ok || !res.body) throw await apiError(res);
      const target = o.output ? await openPartial(o.output) : undefined;
      const progress = new ByteProgress('export');
      try {
        await pipeline(Readable.fromWeb(res.body as WebReadableStream), progress, target?.stream ?? process.stdout);
      } catch (err) {
        if (target) await fs.promises.rm(target.partial, { force: true });
        throw err;
      } finally {
        progress.stop();
      }
      if (!target || !o.output) return; // stdout carried the export itself
      await fs.promises.rename(target.partial, o.output);
      const summary = { file: o.output, format: o.format, bytes: progress.bytes, lines: progress.lines };
      print(cmd, summary, (s) => `exported ${s.lines} lines (${formatBytes(s.bytes)}, ${formatBytes(progress.rate)}/s) to ${s.file}`);
    });
}
