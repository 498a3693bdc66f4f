import { execFile } from 'node:child_process';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createAccount, createTestApp, TestAccount, TestApp } from '@ams/testing';

const BIN = path.resolve(__dirname, '../../bin/ams.js');
// Each command is a fresh process compiling TypeScript through tsx: a slow start on a busy machine.
const SPAWNING = 180_000;
let t: TestApp;
let server: Server;
let url: string;
let acct: TestAccount;

function ams(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, AMS_API_KEY: '', ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  t = await createTestApp();
  acct = await createAccount(t.ctx);
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await t.close();
});

describe('ams', () => {
  it('status --json prints the health and exits 0', async () => {
    const res = await ams(['--url', url, 'status', '--json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ database: 'connected' });
  }, SPAWNING);

  it('creates, lists and revokes keys; searches with --json', async () => {
    const created = await ams(['--url', url, '--key', acct.key, '--json', 'keys', 'create', 'cli-key', '--scopes', 'read']);
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout) as { id: string; key: string; scopes: string[] };
    expect(key.scopes).toEqual(['read']);
    const listed = await ams(['--url', url, '--key', acct.key, '--json', 'keys', 'list']);
    expect((JSON.parse(listed.stdout) as { data: Array<{ id: string }> }).data.map((k) => k.id)).toContain(key.id);

    await t.request().post('/v1/memories').set({ Authorization: `Bearer ${acct.key}` }).send({ content: 'The CLI finds this memory', agent_id: 'cli' }).expect(201);
    const found = await ams(['--url', url, '--json', 'search', 'CLI finds', '--mode', 'keyword'], { AMS_API_KEY: key.key });
    expect(found.code).toBe(0);
    expect((JSON.parse(found.stdout) as { data: Array<{ memory: { content: string } }> }).data[0]!.memory.content).toBe('The CLI finds this memory');

    expect((await ams(['--url', url, '--key', acct.key, 'keys', 'revoke', key.id])).code).toBe(0);
    const revoked = await ams(['--url', url, '--key', key.key, 'search', 'anything']);
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toContain('API key has been revoked');
  }, SPAWNING);

  it('exits 2 without a key, 1 on an API error, 3 when the server cannot be reached', async () => {
    expect((await ams(['--url', url, 'search', 'x'])).code).toBe(2);
    const bad = await ams(['--url', url, '--key', acct.key, 'keys', 'revoke', 'not-a-key-id']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('not_found');
    expect((await ams(['--url', 'http://127.0.0.1:1', 'status'])).code).toBe(3);
  }, SPAWNING);

  it('mcp speaks MCP on stdio, bridged to the API, with the key\'s scopes', async () => {
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--url', url, '--key', acct.key], stderr: 'pipe' }));
    try {
      const names = (await client.listTools()).tools.map((x) => x.name);
      expect(names).toEqual(expect.arrayContaining(['memory_store', 'memory_search', 'context_build']));
      const stored = (await client.callTool({ name: 'memory_store', arguments: { content: 'stored over stdio', agent_id: 'stdio' } })) as unknown as { structuredContent: { id: string } };
      expect(stored.structuredContent.id).toMatch(/^[0-9a-f-]{36}$/);
      const bad = (await client.callTool({ name: 'memory_store', arguments: { agent_id: 'stdio' } })) as unknown as { isError: boolean; content: Array<{ text: string }> };
      expect(bad.isError).toBe(true);
      expect(bad.content[0]!.text).toContain('content');
    } finally {
      await client.close();
    }
    const readOnly = new Client({ name: 'stdio-test', version: '1.0.0' });
    await readOnly.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--url', url], env: { ...process.env, AMS_API_KEY: await acct.keyWith(['read']) } as Record<string, string>, stderr: 'pipe' }));
    try {
      const refused = (await readOnly.callTool({ name: 'memory_delete', arguments: { id: '00000000-0000-4000-8000-000000000000' } })) as unknown as { isError: boolean; content: Array<{ text: string }> };
      expect(refused).toMatchObject({ isError: true, content: [{ text: 'Insufficient scope. Required: delete' }] });
    } finally {
      await readOnly.close();
    }
  }, SPAWNING);

  it('reembed --status shows the active model; reembed of a model not in MODEL_DIR exits 1 naming the problem', async () => {
    const status = await ams(['--url', url, '--key', acct.key, '--json', 'reembed', '--status']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ object: 'reembed_status', active_model: expect.any(String) });
    const unknown = await ams(['--url', url, '--key', acct.key, 'reembed', '--model', 'nobody/no-such-model']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('validation_error');
  }, SPAWNING);
});
