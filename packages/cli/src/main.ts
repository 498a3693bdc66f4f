import { Command, CommanderError, Option } from 'commander';
import { AmsError } from '@agent-memory/client';
// The version alone: @ams/core's index would load the config schema and the logger on every start.
import { VERSION } from '@ams/core/version';
import { registerAccountsCommand } from './commands/accounts';
import { registerExportCommand } from './commands/export';
import { registerHistoryCommand } from './commands/history';
import { registerImportCommand } from './commands/import';
import { registerKeysCommand } from './commands/keys';
import { registerMcpCommand } from './commands/mcp';
import { registerMigrateCommand } from './commands/migrate';
import { registerSearchCommand } from './commands/search';
import { registerStatusCommand } from './commands/status';
import { DEFAULT_CONNECT_TIMEOUT_S, DEFAULT_READ_TIMEOUT_S, parseBaseUrl, parseSeconds, redactCredentials, timeoutOf, useTimeouts } from './connection';
import { EXIT } from './exit-codes';
import { registerReembedCommand } from './commands/reembed';
import { registerRetierCommand } from './commands/retier';

const program = new Command('ams')
  .description('Agent Memory Service command line')
  .version(VERSION)
  .option('--url <url>', 'the API base URL (default: $AMS_URL)', process.env.AMS_URL ?? 'http://127.0.0.1:8080')
  .option('--key <key>', 'an API key (default: $AMS_API_KEY)', process.env.AMS_API_KEY)
  .option('--json', 'machine-readable output')
  .addOption(new Option('--connect-timeout <seconds>', 'give up when no connection is made within this time').env('AMS_CONNECT_TIMEOUT').default(DEFAULT_CONNECT_TIMEOUT_S))
  .addOption(new Option('--timeout <seconds>', 'give up when the server, once connected, sends nothing for this long').env('AMS_TIMEOUT').default(DEFAULT_READ_TIMEOUT_S))
  // Commander's own messages quote arguments: a URL's credentials never reach the terminal.
  .configureOutput({ writeErr: (text) => process.stderr.write(redactCredentials(text)) })
  // Errors reach report() below, subcommands' too (they inherit this): one place decides exit codes.
  .exitOverride()
  // Before any command runs: a malformed URL or timeout is a usage error (exit 2), not a failed call.
  .hook('preAction', (_program, command) => {
    const o = command.optsWithGlobals<{ url: string; connectTimeout: string | number; timeout: string | number }>();
    parseBaseUrl(o.url);
    useTimeouts(parseSeconds('--connect-timeout', o.connectTimeout), parseSeconds('--timeout', o.timeout));
  });

// One command per file under commands/, each registered by one line here.
registerStatusCommand(program);
registerSearchCommand(program);
registerKeysCommand(program);
registerMigrateCommand(program);
registerMcpCommand(program);
registerExportCommand(program);
registerImportCommand(program);
registerReembedCommand(program);
registerHistoryCommand(program);
registerRetierCommand(program);
registerAccountsCommand(program);

/** Every message the CLI writes on stderr, credentials redacted. */
const fail = (text: string) => process.stderr.write(redactCredentials(text) + '\n');

/** Writes the error the way scripts and people expect, and returns the exit code (exit-codes.ts). */
function report(err: unknown): number {
  const { json, url, connectTimeout, timeout } = program.opts<{ json?: boolean; url: string; connectTimeout: string; timeout: string }>();
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
    // Commander has already printed its own errors; ours (ams.usage) are printed here.
    if (err.code === 'ams.usage') fail(`ams: ${err.message}`);
    return EXIT.usage;
  }
  if (err instanceof AmsError) {
    fail(
      json
        ? JSON.stringify({ type: err.type, code: err.code, message: err.message, request_id: err.requestId, details: err.details })
        : // A validation error names each field and what is wrong with it, one per line.
          [`ams: ${err.message} (${err.type}, request ${err.requestId})`, ...err.details.map((d) => `  ${d.message}`)].join('\n'),
    );
    return EXIT.apiError;
  }
  const timedOut = timeoutOf(err);
  if (timedOut === 'connect') {
    fail(`ams: cannot reach ${url}: no connection within ${connectTimeout} s (--connect-timeout, AMS_CONNECT_TIMEOUT)`);
    return EXIT.unreachable;
  }
  if (timedOut === 'read') {
    fail(`ams: ${url} did not answer: nothing received for ${timeout} s (--timeout, AMS_TIMEOUT)`);
    return EXIT.unreachable;
  }
  // fetch rejects with a TypeError whose cause is the socket error when the server cannot be reached.
  const cause = (err as { cause?: { code?: string } }).cause;
  if (err instanceof TypeError && cause) {
    fail(`ams: cannot reach ${url}${cause.code ? ` (${cause.code})` : ''}`);
    return EXIT.unreachable;
  }
  fail(`ams: ${err instanceof Error ? err.message : String(err)}`);
  return EXIT.apiError;
}

program.parseAsync(process.argv).catch((err: unknown) => process.exit(report(err)));
