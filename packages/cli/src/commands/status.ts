import type { Command } from 'commander';
import { globalsOf, print } from '../cli-context';
import { EXIT } from '../exit-codes';

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('service health: database, queue, embedding model')
    .action(async (_o: unknown, cmd: Command) => {
      const res = await fetch(new URL('/v1/health', globalsOf(cmd).url));
      const health = (await res.json()) as Record<string, unknown>;
      print(cmd, health, (h) => Object.entries(h).map(([k, v]) => `${k.padEnd(20)} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join('\n'));
      if (!res.ok) process.exitCode = EXIT.apiError;
    });
}
