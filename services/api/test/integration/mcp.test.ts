import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, createAccount, createTestApp, TestAccount, TestApp } from '@ams/testing';

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };

let t: TestApp;
let server: Server;
let url: URL;
let acct: TestAccount;
const clients: Client[] = [];

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'ams-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: bearer(key) } }));
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;

/** The tool's result object; fails the test with the tool's message when it is an error. */
async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await call(client, name, args);
  if (res.isError) throw new Error(`${name} failed: ${res.content[0]?.text}`);
  return res.structuredContent!;
}

beforeAll(async () => {
  t = await createTestApp();
  acct = await createAccount(t.ctx);
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await new Promise((r) => server.close(r));
  await t.close();
});

describe('MCP over Streamable HTTP', () => {
  it('initializes and lists every tool, each with a JSON Schema made from the route schema', async () => {
    const client = await connect(acct.key);
    expect(client.getServerVersion()?.name).toBe('agent-memory-service');
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(
      [
        'agent_list', 'agent_stats', 'context_build', 'decision_check', 'decision_record', 'entity_create', 'entity_link',
        'memory_delete', 'memory_get', 'memory_list', 'memory_search', 'memory_store', 'memory_update', 'pattern_adopt',
        'pattern_search', 'session_end', 'session_start',
      ].sort(),
    );
    const store = tools.find((x) => x.name === 'memory_store')!;
    expect(store.inputSchema).toMatchObject({ type: 'object', required: ['content'] });
    expect(store.inputSchema.properties).not.toHaveProperty('search_mode');
    expect(tools.find((x) => x.name === 'memory_search')!.inputSchema.properties).toHaveProperty('search_mode');
  });

  it('calls each tool end to end against the service', async () => {
    const client = await connect(acct.key);
    const memory = await ok(client, 'memory_store', { content: 'The user prefers PostgreSQL for analytics', agent_id: 'mcp-agent' });
    expect(memory).toMatchObject({ object: 'memory', content: 'The user prefers PostgreSQL for analytics' });
    const id = memory.id as string;
    expect(await ok(client, 'memory_get', { id })).toMatchObject({ id });
    expect(((await ok(client, 'memory_list', { agent_id: 'mcp-agent' })).data as unknown[]).length).toBe(1);
    const search = await ok(client, 'memory_search', { query: 'PostgreSQL analytics', search_mode: 'hybrid', agent_id: 'mcp-agent' });
    expect((search.data as Array<{ memory: { id: string } }>)[0]!.memory.id).toBe(id);
    expect(await ok(client, 'memory_update', { id, importance: 0.9 })).toMatchObject({ id, importance: 0.9 });
    expect((await ok(client, 'context_build', { query: 'PostgreSQL analytics', agent_id: 'mcp-agent', threshold: 0 })).context).toContain('PostgreSQL');

    const session = await ok(client, 'session_start', { agent_id: 'mcp-agent', title: 'MCP session' });
    expect(await ok(client, 'session_end', { id: session.id, summary: 'done' })).toMatchObject({ id: session.id, status: 'ended' });

    await ok(client, 'decision_record', { title: 'Use PostgreSQL for analytics', rationale: 'pgvector and SQL in one place' });
    expect(((await ok(client, 'decision_check', { query: 'PostgreSQL analytics' })).data as unknown[]).length).toBeGreaterThan(0);

    const project = await t.request().post('/v1/projects').set(bearer(acct.key)).send({ slug: 'mcp-proj', name: 'MCP project' }).expect(201);
    const pattern = await t.request().post('/v1/patterns').set(bearer(acct.key)).send({ title: 'Retry with jitter', description: 'Backoff for retries' }).expect(201);
    expect(((await ok(client, 'pattern_search', { query: 'retry backoff' })).data as unknown[]).length).toBeGreaterThan(0);
    await ok(client, 'pattern_adopt', { id: pattern.body.id, project: project.body.slug });

    const entity = await ok(client, 'entity_create', { name: 'Zanzibar Store', entity_type: 'technology' });
    expect(await ok(client, 'entity_link', { entity_id: entity.id, memory_id: id })).toMatchObject({ entity_id: entity.id, memory_id: id });

    const agents = (await ok(client, 'agent_list', {})).data as Array<{ id: string; name: string }>;
    const agent = agents.find((a) => a.name === 'mcp-agent')!;
    expect(await ok(client, 'agent_stats', { id: agent.id })).toBeDefined();

    expect(await ok(client, 'memory_delete', { id })).toEqual({ id, deleted: true });
    const gone = await call(client, 'memory_get', { id });
    expect(gone.isError).toBe(true);
    expect(gone.content[0]!.text).toBe('Memory not found');
  });

  it('answers invalid arguments with a tool error naming the field', async () => {
    const client = await connect(acct.key);
    const res = await call(client, 'memory_store', { content: 42, importance: 7 });
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toContain('content');
    expect(res.content[0]!.text).toContain('importance');
    expect(res.structuredContent).toMatchObject({ type: 'validation_error', code: 422 });
    expect(res.structuredContent!.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'content' })]));
  });

  it('gives a read-only key only the read tools, and the scope error when it calls a write tool', async () => {
    const client = await connect(await acct.keyWith(['read']));
    const names = (await client.listTools()).tools.map((x) => x.name);
    expect(names).toContain('memory_search');
    expect(names).not.toContain('memory_store');
    expect(names).not.toContain('memory_delete');
    const res = await call(client, 'memory_store', { content: 'not allowed' });
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toBe('Insufficient scope. Required: write');
    expect(await t.ctx.db.knex('memories').where({ account_id: acct.accountId, content: 'not allowed' }).first()).toBeUndefined();
  });

  it('answers 401 with the error envelope when no key is sent, and the SDK client cannot initialize', async () => {
    const res = await t
      .request()
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ type: 'unauthorized', code: 401 });
    const client = new Client({ name: 'ams-test', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(url))).rejects.toThrow();
  });
});
