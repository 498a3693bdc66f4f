import type { Command } from 'commander';
import { VERSION } from '@ams/core';
import { globalsOf, requireKey } from '../cli-context';
import { runStdioBridge } from '../stdio-bridge';

export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('MCP over stdio for desktop hosts, bridged to the API (--url, --key)')
    .action(async (_o: unknown, cmd: Command) => {
      await runStdioBridge(globalsOf(cmd).url, requireKey(cmd), VERSION);
    });
}
