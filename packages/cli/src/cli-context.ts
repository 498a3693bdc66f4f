import { Command, CommanderError } from 'commander';
import { createMemoryClient } from '@agent-memory/client';
import { EXIT } from './exit-codes';

/** The options every command takes (set before or after the command's name). */
export interface Globals {
  url: string;
  key?: string;
  json?: boolean;
}

export const globalsOf = (cmd: Command): Globals => cmd.optsWithGlobals<Globals>();

/** The API key, or a usage error naming both ways to give it. */
export function requireKey(cmd: Command): string {
  const { key } = globalsOf(cmd);
  if (!key) throw new CommanderError(EXIT.usage, 'ams.usage', 'No API key: pass --key or set AMS_API_KEY');
  return key;
}

export const clientFor = (cmd: Command) => createMemoryClient({ baseUrl: globalsOf(cmd).url, apiKey: requireKey(cmd) });

/** Prints `value` as JSON with --json, else as `human(value)`. */
export function print<T>(cmd: Command, value: T, human: (v: T) => string): void {
  process.stdout.write((globalsOf(cmd).json ? JSON.stringify(value, null, 2) : human(value)) + '\n');
}

/** A usage error (exit 2) with `message` on stderr. */
export const usageError = (message: string) => new CommanderError(EXIT.usage, 'ams.usage', message);
