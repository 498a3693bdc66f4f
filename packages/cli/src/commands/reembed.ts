import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { AmsError } from '@agent-memory/client';
import { clientFor, globalsOf, print } from '../cli-context';
import { EXIT } from '../exit-codes';

interface Run {
  status: string;
  target_model: string;
  done: number;
  total: number;
  rate_per_second: number | null;
  eta_seconds: number | null;
  error: string | null;
}

const line = (r: Run) =>
  `${r.status.padEnd(9)} ${r.target_model}  ${r.done}/${r.total}` +
  (r.rate_per_second !== null ? `  ${r.rate_per_second}/s` : '') +
  (r.eta_seconds !== null ? `  ETA ${r.eta_seconds}s` : '') +
  (r.error ? `  ${r.error}` : '');

/** Follows a run to its end: a bar on a terminal, a line a second for scripts (one JSON object each with --json). */
async function follow(cmd: Command, status: () => Promise<{ run?: Run | null }>, first: Run): Promise<Run> {
  const tty = process.stderr.isTTY && !globalsOf(cmd).json;
  const bar = tty ? new cliProgress.SingleBar({ stream: process.stderr, format: `re-embed ${first.target_model} [{bar}] {value}/{total} | {rate} | ETA {eta_s}`, hideCursor: true }, cliProgress.Presets.shades_classic) : undefined;
  bar?.start(first.total, first.done, { rate: '-', eta_s: '-' });
  try {
    for (;;) {
      await new Promise((r) => setTimeout(r, 1_000));
      const run = (await status()).run!;
      if (bar) bar.update(run.done, { rate: run.rate_per_second === null ? '-' : `${run.rate_per_second}/s`, eta_s: run.eta_seconds ?? '-' });
      else print(cmd, run, line);
      if (run.status === 'completed' || run.status === 'failed') return run;
    }
  } finally {
    bar?.stop();
  }
}

/**
 * `ams reembed [--model m] [--wait]`: starts re-embedding the store with another model (admin key),
 * optionally following it to the end; `ams reembed --status`: the active model and the latest run.
 */
export function registerReembedCommand(program: Command): void {
  program
    .command('reembed')
    .description('re-embed every memory with another model, online (admin); progress also in `ams status`')
    .option('--model <name>', 'the model to move to (default: the server’s EMBEDDING_MODEL); its files must be in MODEL_DIR')
    .option('--wait', 'follow the run until it ends (a progress bar on a terminal); exit 1 if it fails')
    .option('--status', 'show the active model and the latest run instead of starting one')
    .action(async (o: { model?: string; wait?: boolean; status?: boolean }, cmd: Command) => {
      const api = clientFor(cmd).raw;
      const status = async () => {
        const { data, error, response } = await api.GET('/v1/admin/reembed', {});
        if (!response.ok) throw AmsError.fromResponse(response.status, error);
        return data!;
      };
      if (o.status) {
        const s = await status();
        print(cmd, s, (v) => `active model  ${v.active_model} (${v.dimensions} dimensions)\n${v.run ? `latest run    ${line(v.run)}` : 'no run yet'}`);
        return;
      }
      const { data, error, response } = await api.POST('/v1/admin/reembed', { body: o.model ? { model: o.model } : {} });
      if (!response.ok) throw AmsError.fromResponse(response.status, error);
      print(cmd, data!, line);
      if (!o.wait) return;
      const end = await follow(cmd, status, data!);
      if (process.stderr.isTTY && !globalsOf(cmd).json) print(cmd, end, line);
      if (end.status === 'failed') process.exitCode = EXIT.apiError;
    });
}
