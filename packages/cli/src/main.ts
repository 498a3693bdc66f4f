import { Command, CommanderError } from 'commander';
import { AmsError, createMemoryClient } from '@agent-memory/client';
import { VERSION } from '@ams/core';
import { runStdioBridge } from './stdio-bridge';
import { registerReembedCommand } from './commands/reembed';

/** Exit codes scripts can rely on. */
export const EXIT = { ok: 0, apiError: 1, usage: 2, unreachable: 3 } as const;

interface Globals {
  url: string;
  key?: string;
  json?: boolean;
}

const program = new Command('ams')
  .description('Agent Memory Service command line')
  .version(VERSION)
  .option('--url <url>', 'the API base URL', process.env.AMS_URL ?? 'http://127.0.0.1:8080')
  .option('--key <key>', 'an API key (default: $AMS_API_KEY)', process.env.AMS_API_KEY)
  .option('--json', 'machine-readable output')
  .exitOverride();

const globals = () => program.opts<Globals>();
function client() {
  const { url, key } = globals();
  if (!key) throw new CommanderError(EXIT.usage, 'ams.key', 'No API key: pass --key or set AMS_API_KEY');
  return createMemoryClient({ baseUrl: url, apiKey: key });
}
/** Prints `value` as JSON with --json, else as `human(value)`. */
function out<T>(value: T, human: (v: T) => string): void {
  process.stdout.write((globals().json ? JSON.stringify(value, null, 2) : human(value)) + '\n');
}

program
  .command('status')
  .description('service health: database, queue, embedding model')
  .action(async () => {
    const res = await fetch(new URL('/v1/health', globals().url));
    const health = (await res.json()) as Record<string, unknown>;
    out(health, (h) => Object.entries(h).map(([k, v]) => `${k.padEnd(20)} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join('\n'));
    if (!res.ok) process.exitCode = EXIT.apiError;
  });

program
  .command('search <query>')
  .description('search memories')
  .option('--mode <mode>', 'semantic | keyword | hybrid', 'hybrid')
  .option('--agent <agent>', 'an agent id or name')
  .option('--limit <n>', 'results', '10')
  .action(async (query: string, o: { mode: 'semantic' | 'keyword' | 'hybrid'; agent?: string; limit: string }) => {
    const results = await client().memories.search({ query, search_mode: o.mode, limit: Number(o.limit), ...(o.agent ? { agent_id: o.agent } : {}) });
    out(results, (r) => r.data.map((d) => `${d.score.toFixed(3)}  ${d.memory.id}  ${d.memory.content.replace(/\s+/g, ' ').slice(0, 100)}`).join('\n') || 'no results');
  });

registerReembedCommand(program);

const keys = program.command('keys').description('API keys (admin scope)');
keys
  .command('create <name>')
  .option('--scopes <list>', 'comma-separated: read,write,delete,admin', 'read,write')
  .action(async (name: string, o: { scopes: string }) => {
    const scopes = o.scopes.split(',').map((s) => s.trim()) as Array<'read' | 'write' | 'delete' | 'admin'>;
    const { data, error, response } = await client().raw.POST('/v1/api-keys', { body: { name, scopes } });
    if (!response.ok) throw AmsError.fromResponse(response.status, error);
    out(data!, (k) => `${k.id}  ${k.scopes.join(',')}\n${k.key}   (shown once: keep it safe)`);
  });
keys.command('list').action(async () => {
  const { data, error, response } = await client().raw.GET('/v1/api-keys', {});
  if (!response.ok) throw AmsError.fromResponse(response.status, error);
  out(data!, (p) => p.data.map((k) => `${k.id}  ${k.key_prefix}…  ${k.name}  ${k.scopes.join(',')}${k.revoked_at ? '  revoked' : ''}`).join('\n'));
});
keys.command('revoke <id>').action(async (id: string) => {
  const { error, response } = await client().raw.DELETE('/v1/api-keys/{id}', { params: { path: { id } } });
  if (!response.ok) throw AmsError.fromResponse(response.status, error);
  out({ id, revoked: true }, () => `revoked ${id}`);
});

program
  .command('migrate')
  .description('apply pending database migrations (DATABASE_URL, or the embedded store in DATA_DIR)')
  .action(async () => {
    const { loadConfig } = await import('@ams/core');
    const { createDatabase, migrateLatest } = await import('@ams/db');
    const db = await createDatabase(loadConfig());
    try {
      const applied = await migrateLatest(db.knex);
      out({ applied }, (r) => (r.applied.length ? r.applied.map((m) => `applied ${m}`).join('\n') : 'up to date'));
    } finally {
      await db.close();
    }
  });

program
  .command('mcp')
  .description('MCP over stdio for desktop hosts, bridged to the API (--url, --key)')
  .action(async () => {
    const { url, key } = globals();
    if (!key) throw new CommanderError(EXIT.usage, 'ams.key', 'No API key: pass --key or set AMS_API_KEY');
    await runStdioBridge(url, key, VERSION);
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') process.exit(EXIT.ok);
    if (err.code === 'ams.key') process.stderr.write(`ams: ${err.message}\n`);
    process.exit(EXIT.usage);
  }
  if (err instanceof AmsError) {
    process.stderr.write(globals().json ? JSON.stringify({ type: err.type, code: err.code, message: err.message, request_id: err.requestId, details: err.details }) + '\n' : `ams: ${err.message} (${err.type}, request ${err.requestId})\n`);
    process.exit(EXIT.apiError);
  }
  // fetch rejects with a TypeError whose cause is the socket error when the server cannot be reached.
  const cause = (err as { cause?: { code?: string } }).cause;
  if (err instanceof TypeError && cause) {
    process.stderr.write(`ams: cannot reach ${globals().url}${cause.code ? ` (${cause.code})` : ''}\n`);
    process.exit(EXIT.unreachable);
  }
  process.stderr.write(`ams: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(EXIT.apiError);
});
