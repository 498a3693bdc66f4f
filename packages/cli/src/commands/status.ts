import type { Command } from 'commander';
import { AmsError } from '@agent-memory/client';
import { clientFor, globalsOf, print } from '../cli-context';
import { EXIT } from '../exit-codes';

type Ingestion = { backlog: { pending: number; processing: number }; rate_per_second: number | null; estimated_drain_seconds: number | null };

/** The embedding backlog as the account sees it (GET /v1/ingestion); needs a key, so only with one. */
async function ingestionOf(cmd: Command): Promise<Ingestion | undefined> {
  if (!globalsOf(cmd).key) return undefined;
  const { data, error, response } = await clientFor(cmd).raw.GET('/v1/ingestion', {});
  if (!response.ok) throw AmsError.fromResponse(response.status, error);
  return data as Ingestion;
}

function human(status: Record<string, unknown> & { ingestion?: Ingestion }): string {
  const { ingestion, ...health } = status;
  const lines = Object.entries(health).map(([k, v]) => `${k.padEnd(20)} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  if (ingestion) {
    const { backlog, rate_per_second: rate, estimated_drain_seconds: drain } = ingestion;
    lines.push(
      `${'queue backlog'.padEnd(20)} ${backlog.pending} pending, ${backlog.processing} processing` +
        `${rate === null ? '' : `; ${rate.toFixed(1)}/s`}${drain === null ? '' : `; drained in ~${drain} s`}`,
    );
  }
  return lines.join('\n');
}

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('service health: database, queue backlog (with a key), embedding model')
    .action(async (_o: unknown, cmd: Command) => {
      const res = await fetch(new URL('/v1/health', globalsOf(cmd).url));
      const health = (await res.json()) as Record<string, unknown>;
      const ingestion = await ingestionOf(cmd);
      print(cmd, { ...health, ...(ingestion ? { ingestion } : {}) }, human);
      if (!res.ok) process.exitCode = EXIT.apiError;
    });
}
