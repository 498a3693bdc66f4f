import { Command, CommanderError } from 'commander';
import { AmsError, createMemoryClient } from '@agent-memory/client';

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

/**
 * `ams reembed [--model m] [--wait]`: starts re-embedding the store with another model (admin key),
 * optionally following it to the end; `ams reembed --status`: the active model and the latest run.
 */
export function registerReembedCommand(program: Command): void {
  program
    .command('reembed')
    .description('re-embed every memory with another model, online (admin); progress also in `ams status`')
    .option('--model <name>', 'the model to move to (default: the server’s EMBEDDING_MODEL); its files must be in MODEL_DIR')
    .option('--wait', 'follow the run until it completes')
    .option('--status', 'show the active model and the latest run instead of starting one')
    .action(async (o: { model?: string; wait?: boolean; status?: boolean }) => {
      const { url, key, json } = program.opts<{ url: string; key?: string; json?: boolean }>();
      if (!key) throw new CommanderError(2, 'ams.key', 'No API key: pass --key or set AMS_API_KEY');
      const api = createMemoryClient({ baseUrl: url, apiKey: key }).raw;
      const print = (value: unknown, human: string) => process.stdout.write((json ? JSON.stringify(value) : human) + '\n');
      const status = async () => {
        const { data, error, response } = await api.GET('/v1/admin/reembed', {});
        if (!response.ok) throw AmsError.fromResponse(response.status, error);
        return data!;
      };
      if (o.status) {
        const s = await status();
        print(s, `active model  ${s.active_model} (${s.dimensions} dimensions)\n${s.run ? `latest run    ${line(s.run)}` : 'no run yet'}`);
        return;
      }
      const { data, error, response } = await api.POST('/v1/admin/reembed', { body: o.model ? { model: o.model } : {} });
      if (!response.ok) throw AmsError.fromResponse(response.status, error);
      print(data, line(data!));
      if (!o.wait) return;
      for (;;) {
        await new Promise((r) => setTimeout(r, 1_000));
        const run = (await status()).run!;
        print(run, line(run));
        if (run.status === 'completed') return;
        if (run.status === 'failed') {
          process.exitCode = 1;
          return;
        }
      }
    });
}
