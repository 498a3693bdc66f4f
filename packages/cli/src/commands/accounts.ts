import type { Command } from 'commander';
import type { AccountLimits, AccountLimitsPatch, AccountUsage } from '@agent-memory/client';
import { clientFor, print, usageError } from '../cli-context';

/** Each limit's option: the API's name, and whether it takes a fraction (the weight) or a whole number. */
const LIMIT_OPTIONS: Array<{ flag: string; key: keyof AccountLimitsPatch & string; fraction?: boolean; help: string }> = [
  { flag: '--max-memories <n>', key: 'max_memories', help: 'live memories' },
  { flag: '--max-storage-bytes <n>', key: 'max_storage_bytes', help: 'stored bytes (content + metadata + vectors)' },
  { flag: '--requests-per-minute <n>', key: 'requests_per_minute', help: 'requests per minute, all keys together' },
  { flag: '--searches-per-day <n>', key: 'searches_per_day', help: 'searches per UTC day' },
  { flag: '--embeddings-per-day <n>', key: 'embeddings_per_day', help: 'texts embedded per UTC day' },
  { flag: '--fair-share-weight <x>', key: 'fair_share_weight', fraction: true, help: 'share of admission when busy (> 0)' },
];

const camel = (key: string) => key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** `default` → null (the configured default); otherwise a number ≥ 0 (whole unless `fraction`). */
function limitValue(flag: string, raw: string, fraction: boolean): number | null {
  if (raw === 'default') return null;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || (fraction ? n <= 0 : n < 0) || (!fraction && !Number.isInteger(n))) {
    throw usageError(`${flag.split(' ')[0]} must be ${fraction ? 'a number > 0' : 'a whole number ≥ 0 (0: unlimited)'} or "default", not ${JSON.stringify(raw)}`);
  }
  return n;
}

const shown = (n: number | null | undefined) => (n ? String(n) : 'unlimited');

const limitsText = (l: AccountLimits) =>
  [
    `account              ${l.account_id}`,
    ...LIMIT_OPTIONS.map(({ key }) => {
      const own = (l.overrides as Record<string, number | null>)[key];
      const value = (l as unknown as Record<string, number>)[key];
      return `${key.padEnd(20)} ${key === 'fair_share_weight' ? value : shown(value)}${own === null || own === undefined ? ' (default)' : ''}`;
    }),
  ].join('\n');

const usageText = (u: AccountUsage) => {
  const of = (used: number, limit: number | null | undefined) => `${used}${limit ? ` of ${limit}` : ''}`;
  return [
    `account              ${u.account_id}  (${u.day}, ${u.month})`,
    `memories             ${of(u.memories.used, u.memories.limit)}`,
    `storage bytes        ${of(u.storage_bytes.used, u.storage_bytes.limit)}`,
    `vectors              ${u.vectors.used}`,
    `requests             ${u.requests.today} today, ${u.requests.this_month} this month${u.requests.limit_per_minute ? ` (${u.requests.limit_per_minute}/min)` : ''}`,
    `searches             ${of(u.searches.today, u.searches.limit_per_day)} today, ${u.searches.this_month} this month`,
    `embeddings           ${of(u.embeddings.today, u.embeddings.limit_per_day)} today, ${u.embeddings.this_month} this month`,
  ].join('\n');
};

/** `ams accounts`: usage, and the operator's per-account limits (docs/api.md, "Account limits and usage"). */
export function registerAccountsCommand(program: Command): void {
  const accounts = program.command('accounts').description("accounts' usage and limits (subcommands: usage, limits)");
  accounts
    .command('usage [account]')
    .description("the account's usage against its limits; another account's with the operator's admin key")
    .action(async (account: string | undefined, _o: unknown, cmd: Command) => {
      const client = clientFor(cmd);
      print(cmd, await (account ? client.accounts.usageOf(account) : client.accounts.usage()), usageText);
    });
  const limits = accounts
    .command('limits <account>')
    .description("show an account's limits, or change those given (the operator's admin key; \"default\" restores one)");
  for (const o of LIMIT_OPTIONS) limits.option(o.flag, o.help);
  limits.action(async (account: string, opts: Record<string, string | undefined>, cmd: Command) => {
    const change: Record<string, number | null> = {};
    for (const o of LIMIT_OPTIONS) {
      const raw = opts[camel(o.key)];
      if (raw !== undefined) change[o.key] = limitValue(o.flag, raw, o.fraction ?? false);
    }
    const client = clientFor(cmd);
    const result = Object.keys(change).length > 0 ? await client.accounts.changeLimits(account, change as AccountLimitsPatch) : await client.accounts.limits(account);
    print(cmd, result, limitsText);
  });
}
