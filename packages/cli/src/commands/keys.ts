import { SCOPES, type Scope } from '@ams/vocabulary';
import type { Command } from 'commander';
import { AmsError } from '@agent-memory/client';
import { clientFor, print } from '../cli-context';

export function registerKeysCommand(program: Command): void {
  const keys = program.command('keys').description('API keys (admin scope)');
  keys
    .command('create <name>')
    .description('create a key (printed once)')
    .option('--scopes <list>', `comma-separated: ${SCOPES.join(',')}`, 'read,write')
    .action(async (name: string, o: { scopes: string }, cmd: Command) => {
      const scopes = o.scopes.split(',').map((s) => s.trim()) as Scope[];
      const { data, error, response } = await clientFor(cmd).raw.POST('/v1/api-keys', { body: { name, scopes } });
      if (!response.ok) throw AmsError.fromResponse(response.status, error);
      print(cmd, data!, (k) => `${k.id}  ${k.scopes.join(',')}\n${k.key}   (shown once: keep it safe)`);
    });
  keys
    .command('list')
    .description("the account's keys")
    .action(async (_o: unknown, cmd: Command) => {
      const { data, error, response } = await clientFor(cmd).raw.GET('/v1/api-keys', {});
      if (!response.ok) throw AmsError.fromResponse(response.status, error);
      print(cmd, data!, (p) => p.data.map((k) => `${k.id}  ${k.key_prefix}…  ${k.name}  ${k.scopes.join(',')}${k.revoked_at ? '  revoked' : ''}`).join('\n'));
    });
  keys
    .command('revoke <id>')
    .description('revoke a key')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const { error, response } = await clientFor(cmd).raw.DELETE('/v1/api-keys/{id}', { params: { path: { id } } });
      if (!response.ok) throw AmsError.fromResponse(response.status, error);
      print(cmd, { id, revoked: true }, () => `revoked ${id}`);
    });
}
