import { Command, Option } from 'commander';
import type { MemoryVersion } from '@agent-memory/client';
import { clientFor, print, usageError } from '../cli-context';

const when = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');
const short = (v: unknown) => {
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/** One line per version, then one per changed field: before → after. */
function describe(versions: MemoryVersion[]): string {
  return versions
    .map((v) => {
      const who = v.actor.type === 'system' ? 'system' : `key ${v.actor.key_id}`;
      const head = `v${v.version}  ${when(v.created_at)}  ${v.change}  by ${who}`;
      if (v.change === 'create') return head;
      const fields = v.changed_fields.filter((f) => f in v.after || f in v.before);
      return [head, ...fields.map((f) => `    ${f}: ${short(v.before[f] ?? null)} → ${short(v.after[f] ?? null)}`)].join('\n');
    })
    .join('\n');
}

export function registerHistoryCommand(program: Command): void {
  program
    .command('history <memory-id>')
    .description("a memory's versions, newest first (what changed, before and after, who and when)")
    .option('--limit <n>', 'versions to show', '20')
    .addOption(new Option('--restore <version>', 'restore the memory to this version (a new version)').argParser((v) => Number(v)))
    .action(async (id: string, o: { limit: string; restore?: number }, cmd: Command) => {
      const client = clientFor(cmd);
      if (o.restore !== undefined) {
        if (!Number.isInteger(o.restore) || o.restore < 1) throw usageError('--restore takes a version number (1 or more)');
        const memory = await client.memories.restoreVersion(id, o.restore);
        print(cmd, memory, (m) => `restored ${m.id} to version ${o.restore}: now version ${m.version}`);
        return;
      }
      const limit = Number(o.limit);
      if (!Number.isInteger(limit) || limit < 1) throw usageError('--limit takes a positive integer');
      const versions: MemoryVersion[] = [];
      for await (const v of client.memories.history(id, { pageSize: Math.min(limit, 100) })) {
        versions.push(v);
        if (versions.length >= limit) break;
      }
      print(cmd, versions, (vs) => describe(vs) || 'no versions');
    });
}
