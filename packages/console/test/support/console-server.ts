import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase, createPostgresDatabase, dropPostgresDatabase, type Knex } from '@ams/db';
import { freePort, waitFor } from '@ams/testing';

const REPO = path.resolve(__dirname, '../../../..');

/** The server the run's database lives on (set by the global setup), reached through its admin database. */
function adminDatabaseUrl(): string {
  if (process.env.TEST_DATABASE_ADMIN_URL) return process.env.TEST_DATABASE_ADMIN_URL;
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = '/postgres';
  return url.toString();
}

export interface ConsoleServer {
  baseUrl: string;
  /** The server's own database (made for this file, dropped on stop). */
  knex: Knex;
  logs: () => string;
  /** 'is running', or how its process ended. */
  state: () => string;
  stop(): Promise<void>;
}

/**
 * The real API process (`server.ts`, as `npm start` runs it) on a fresh PostgreSQL database of its
 * own, embedded workers in-process (no Redis), lexical embedder. `env` adds settings.
 */
export async function startConsoleServer(env: Record<string, string> = {}): Promise<ConsoleServer> {
  const dbName = `ams_console_${Date.now().toString(36)}_${crypto.randomBytes(3).toString('hex')}`;
  const adminUrl = adminDatabaseUrl();
  const databaseUrl = await createPostgresDatabase(adminUrl, dbName);
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ams-console-'));
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [path.join(REPO, 'node_modules/tsx/dist/cli.mjs'), 'services/api/src/server.ts'], {
    cwd: REPO,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      EMBEDDING_PROVIDER: 'lexical',
      BOOTSTRAP_ADMIN_KEY: 'false',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '100000',
      UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '100000',
      REGISTER_RATE_LIMIT_PER_MINUTE: '100000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const db = await createDatabase({ databaseUrl, dataDir: '', dbPoolMax: 2 });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await db.close();
    await dropPostgresDatabase(adminUrl, dbName);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const answers = () => fetch(`${baseUrl}/v1/health`).then((res) => res.ok, () => false);
    await waitFor(async () => child.exitCode === null && (await answers()), 90_000, 'the API to answer /v1/health');
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n${output}`);
  }
  const state = () => (child.exitCode === null && child.signalCode === null ? 'is running' : `exited (${child.exitCode ?? child.signalCode})`);
  return { baseUrl, knex: db.knex, logs: () => output, state, stop };
}

/** A small JSON client for setting up data through the public API, as any client would. */
export function apiAs(baseUrl: string, key: string) {
  const call = async <T = Record<string, unknown>>(method: string, p: string, body?: unknown): Promise<T> => {
    const res = await fetch(baseUrl + p, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return {
    get: <T = Record<string, unknown>>(p: string) => call<T>('GET', p),
    post: <T = Record<string, unknown>>(p: string, body: unknown = {}) => call<T>('POST', p, body),
    del: (p: string) => call('DELETE', p),
    call,
  };
}

/** A new account on the server; its API key. A failure carries what the server printed. */
export async function register(server: ConsoleServer): Promise<string> {
  const res = await fetch(`${server.baseUrl}/v1/auth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: `console.${crypto.randomBytes(4).toString('hex')}@example.com`, password: 'a long console passphrase' }),
  }).catch((err: Error) => {
    throw new Error(`register: ${err.message} (${(err.cause as Error | undefined)?.message ?? 'no cause'}); the server ${server.state()}; it printed:\n${server.logs()}`);
  });
  const body = (await res.json()) as { key?: string; api_key?: string | { key: string } };
  const key = typeof body.api_key === 'object' ? body.api_key.key : (body.key ?? body.api_key);
  if (!key) throw new Error(`register gave no key: ${JSON.stringify(body)}`);
  return key;
}
