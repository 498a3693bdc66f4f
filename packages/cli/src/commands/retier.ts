import type { Command } from 'commander';
import type { RetieringSettings } from '@agent-memory/client';
import { clientFor, print } from '../cli-context';

const settingsText = (s: RetieringSettings) =>
  [
    `re-tiering          ${s.enabled ? 'on' : 'off'}`,
    `promote             after ${s.promote_recalls} recalls within ~${s.promote_window_days} days`,
    `demote              after ${s.demote_after_days} × (1 + importance) days unused`,
    `last run            ${s.last_run_at ?? 'never'}${s.last_run_moved == null ? '' : ` (${s.last_run_moved} moved)`}`,
  ].join('\n');

/** `ams retier`: the account's re-tiering rules (docs/api.md, "Re-tiering"); subcommands change them, run it, list its moves. */
export function registerRetierCommand(program: Command): void {
  const retier = program
    .command('retier')
    .description('re-tiering by use and age: show the rules (subcommands: on, off, run, moves)')
    .action(async (_o: unknown, cmd: Command) => print(cmd, await clientFor(cmd).retiering.settings(), settingsText));
  retier
    .command('on')
    .description('turn re-tiering on (admin key)')
    .option('--promote-recalls <n>', 'recalls that promote a memory one tier')
    .option('--promote-window-days <n>', 'the window those recalls count in')
    .option('--demote-after-days <n>', 'days unused before a memory drops a tier (× (1 + importance))')
    .action(async (o: { promoteRecalls?: string; promoteWindowDays?: string; demoteAfterDays?: string }, cmd: Command) => {
      const rules = {
        enabled: true,
        ...(o.promoteRecalls ? { promote_recalls: Number(o.promoteRecalls) } : {}),
        ...(o.promoteWindowDays ? { promote_window_days: Number(o.promoteWindowDays) } : {}),
        ...(o.demoteAfterDays ? { demote_after_days: Number(o.demoteAfterDays) } : {}),
      };
      print(cmd, await clientFor(cmd).retiering.update(rules), settingsText);
    });
  retier
    .command('off')
    .description('turn re-tiering off (admin key)')
    .action(async (_o: unknown, cmd: Command) => print(cmd, await clientFor(cmd).retiering.update({ enabled: false }), settingsText));
  retier
    .command('run')
    .description('re-tier the account now (admin key)')
    .action(async (_o: unknown, cmd: Command) =>
      print(cmd, await clientFor(cmd).retiering.run(), (r) => `promoted ${r.promoted}, demoted ${r.demoted} (${r.recalls_folded} recalls folded, ${r.scanned_batches} batches)`),
    );
  retier
    .command('moves')
    .description('the latest tier moves, newest first')
    .option('--memory <id>', 'only this memory')
    .option('--limit <n>', 'moves', '20')
    .action(async (o: { memory?: string; limit: string }, cmd: Command) => {
      const moves = await clientFor(cmd).retiering.moves({ limit: Number(o.limit), ...(o.memory ? { memory_id: o.memory } : {}) });
      print(cmd, moves, (m) => m.data.map((x) => `${new Date(x.moved_at * 1000).toISOString()}  ${x.memory_id}  ${x.from} → ${x.to}  (${x.reason})`).join('\n') || 'no moves');
    });
}
