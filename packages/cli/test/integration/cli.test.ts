import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createScratchDatabase, McpToolResult, mcpToolTour, TestAccount, TestApp } from '@ams/testing';
import { ams, BIN, listeningAccount, SPAWNING } from './ams-harness';

let t: TestApp;
let url: string;
let close: () => Promise<void>;
let acct: TestAccount;

beforeAll(async () => ({ t, url, acct, close } = await listeningAccount()));
afterAll(() => close());

describe('ams', () => {
  it('status prints the health, the model and, with a key, the queue backlog; exits 0', async () => {
    const res = await ams(['--url', url, 'status', '--json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ database: 'connected', embedding: { model: expect.any(String) } });
    expect(JSON.parse(res.stdout)).not.toHaveProperty('ingestion');
    // With a key, the queue backlog too.
    const withKey = await ams(['--url', url, '--key', acct.key, 'status', '--json']);
    expect(JSON.parse(withKey.stdout).ingestion).toMatchObject({ backlog: { pending: expect.any(Number), processing: expect.any(Number) } });
    const human = await ams(['--url', url, '--key', acct.key, 'status']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^queue backlog +\d+ pending, \d+ processing/m);
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

  it('migrate applies the migrations to an empty database, then finds it up to date; exits 1 naming a database it cannot reach', async () => {
    const scratch = await createScratchDatabase('cli_migrate');
    try {
      const first = await ams(['--json', 'migrate'], { DATABASE_URL: scratch.url });
      expect(first.code).toBe(0);
      const applied = (JSON.parse(first.stdout) as { applied: string[] }).applied;
      expect(applied.length).toBeGreaterThan(10);
      expect(applied).toContain('20261126_060_memory_history_on_shards');
      const again = await ams(['migrate'], { DATABASE_URL: scratch.url });
      expect([again.code, again.stdout.trim()]).toEqual([0, 'up to date']);
    } finally {
      await scratch.drop();
    }
    const unreachable = await ams(['migrate'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('ams: connect ECONNREFUSED 127.0.0.1:1');
  }, SPAWNING);

  it('exits 0 for help, 2 for usage (no key, a bad choice, an unknown option or command), 1 on an API error, 3 when the server cannot be reached', async () => {
    expect((await ams(['--url', url, 'search', 'x'])).code).toBe(2);
    const bad = await ams(['--url', url, '--key', acct.key, 'keys', 'revoke', 'not-a-key-id']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('not_found');
    expect((await ams(['--url', 'http://127.0.0.1:1', 'status'])).code).toBe(3);
    expect((await ams(['--url', url, '--key', acct.key, 'search', 'x', '--mode', 'fuzzy'])).code).toBe(2);
    expect((await ams(['--url', url, '--no-such-option', 'status'])).code).toBe(2);
    expect((await ams(['no-such-command'])).code).toBe(2);
    const help = await ams(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['status', 'search', 'keys', 'migrate', 'mcp', 'export', 'import']) expect(help.stdout).toContain(command);
  }, SPAWNING);

  it('mcp speaks MCP on stdio, bridged to the API: every tool, a validation error and a scope refusal', async () => {
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--url', url, '--key', acct.key], stderr: 'pipe' }));
    try {
      const names = (await client.listTools()).tools.map((x) => x.name);
      expect(names).toEqual(expect.arrayContaining(['memory_store', 'memory_search', 'context_build']));
      const stored = (await client.callTool({ name: 'memory_store', arguments: { content: 'stored over stdio', agent_id: 'stdio' } })) as unknown as { structuredContent: { id: string } };
      expect(stored.structuredContent.id).toMatch(/^[0-9a-f-]{36}$/);
      // Every tool once, as over HTTP (mcp.test.ts), through the bridge.
      await mcpToolTour(async (name, args) => (await client.callTool({ name, arguments: args })) as McpToolResult, t, acct);
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

  it('reembed --status shows the active model; a refused reembed exits 1 naming the problem', async () => {
    const status = await ams(['--url', url, '--key', acct.key, '--json', 'reembed', '--status']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ object: 'reembed_status', active_model: expect.any(String) });
    const unknown = await ams(['--url', url, '--key', acct.key, 'reembed', '--model', 'nobody/no-such-model']);
    expect(unknown.code).toBe(1);
    // The shared test database's oldest account is whichever test file ran first: this one may not be the operator.
    expect(unknown.stderr).toMatch(/validation_error|only the operator's account.*authorization_error/);
  }, SPAWNING);
});
