import { Command, CommanderError } from 'commander';
import { AmsError } from '@agent-memory/client';
import { VERSION } from '@ams/core';
import { registerExportCommand } from './commands/export';
import { registerImportCommand } from './commands/import';
import { registerKeysCommand } from './commands/keys';
import { registerMcpCommand } from './commands/mcp';
import { registerMigrateCommand } from './commands/migrate';
import { registerSearchCommand } from './commands/search';
import { registerStatusCommand } from './commands/status';
import { EXIT } from './exit-codes';
import { registerReembedCommand } from './commands/reembed';

const program = new Command('ams')
  .description('Agent Memory Service command line')
  .version(VERSION)
  .option('--url <url>', 'the API base URL (default: $AMS_URL)', process.env.AMS_URL ?? 'http://127.0.0.1:8080')
  .option('--key <key>', 'an API key (default: $AMS_API_KEY)', process.env.AMS_API_KEY)
  .option('--json', 'machine-readable output')
  // Errors reach report() below, subcommands' too (they inherit this): one place decides exit codes.
  .exitOverride();

// One command per file under commands/, each registered by one line here.
registerStatusCommand(program);
registerSearchCommand(program);
registerKeysCommand(program);
registerMigrateCommand(program);
registerMcpCommand(program);
registerExportCommand(program);
registerImportCommand(program);
registerReembedCommand(program);

/** Writes the error the way scripts and people expect, and returns the exit code (exit-codes.ts). */
function report(err: unknown): number {
  const json = program.opts<{ json?: boolean }>().json;
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
    // Commander has already printed its own errors; ours (ams.usage) are printed here.
    if (err.code === 'ams.usage') process.stderr.write(`ams: ${err.message}\n`);
    return EXIT.usage;
  }
  if (err instanceof AmsError) {
    process.stderr.write(
      json
        ? JSON.stringify({ type: err.type, code: err.code, message: err.message, request_id: err.requestId, details: err.details }) + '\n'
        : `ams: ${err.message} (${err.type}, request ${err.requestId})\n`,
    );
    return EXIT.apiError;
  }
  // fetch rejects with a TypeError whose cause is the socket error when the server cannot be reached.
  const cause = (err as { cause?: { code?: string } }).cause;
  if (err instanceof TypeError && cause) {
    process.stderr.write(`ams: cannot reach ${program.opts<{ url: string }>().url}${cause.code ? ` (${cause.code})` : ''}\n`);
    return EXIT.unreachable;
  }
  process.stderr.write(`ams: ${err instanceof Error ? err.message : String(err)}\n`);
  return EXIT.apiError;
}

program.parseAsync(process.argv).catch((err: unknown) => process.exit(report(err)));
