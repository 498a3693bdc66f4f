import { execFile } from 'node:child_process';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAccount, createTestApp, TestAccount, TestApp } from '@ams/testing';

export const BIN = path.resolve(__dirname, '../../bin/ams.js');
/** Each command is a fresh process compiling TypeScript through tsx: a slow start on a busy machine. */
export const SPAWNING = 180_000;

export interface AmsRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `ams` bin (no AMS_API_KEY unless `env` gives one); stdout and stderr are pipes, not terminals. */
export function ams(args: string[], env: Record<string, string> = {}): Promise<AmsRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, AMS_API_KEY: '', ...env }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The test app listening on a real port, for the CLI to call. */
export async function listeningApp(): Promise<{ t: TestApp; url: string; close(): Promise<void> }> {
  const t = await createTestApp();
  const server: Server = t.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    t,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise((r) => server.close(r));
      await t.close();
    },
  };
}

/** listeningApp with a fresh account: what a CLI test file starts before its tests. */
export async function listeningAccount(): Promise<{ t: TestApp; url: string; acct: TestAccount; close(): Promise<void> }> {
  const app = await listeningApp();
  return { ...app, acct: await createAccount(app.t.ctx) };
}
