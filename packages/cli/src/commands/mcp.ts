import type { Command } from 'commander';
import { VERSION } from '@ams/core/version';
import { globalsOf, requireKey } from '../cli-context';

export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('MCP over stdio for desktop hosts, bridged to the API (--url, --key)')
    .action(async (_o: unknown, cmd: Command) => {
      // The MCP SDK (and zod) load only for this command: every other one starts without them.
      // require, not import(): under tsx's CommonJS hook an import() goes to Node's own ESM loader.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { runStdioBridge }: typeof import('../stdio-bridge') = require('../stdio-bridge');
      await runStdioBridge(globalsOf(cmd).url, requireKey(cmd), VERSION);
    });
}
