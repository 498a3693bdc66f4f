import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, createAccount, createTestApp, McpToolResult, mcpToolTour, TestAccount, TestApp } from '@ams/testing';


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
  (await client.callTool({ name, arguments: args })) as McpToolResult;

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
        'memory_delete', 'memory_get', 'memory_history', 'memory_list', 'memory_restore_version', 'memory_search', 'memory_store', 'memory_update', 'pattern_adopt',
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
    await mcpToolTour((name, args) => call(client, name, args), t, acct);
  });

  it('agent_stats takes every agent GET /v1/agents/{id}/stats takes: its id or any name it can have', async () => {
    const client = await connect(acct.key);
    for (const name of ['stats-by-name', '  spaced out  ', '🦊'.repeat(255)]) {
      const created = await t.request().post('/v1/agents').set(bearer(acct.key)).send({ name });
      expect(created.status).toBe(201);
      await t.request().post('/v1/memories').set(bearer(acct.key)).send({ content: `remembered by ${name}`, agent_id: created.body.id });
      const rest = await t.request().get(`/v1/agents/${encodeURIComponent(name)}/stats`).set(bearer(acct.key));
      expect(rest.status).toBe(200);
      expect(rest.body).toMatchObject({ agent_id: created.body.id, total_memories: 1 });
      for (const id of [name, created.body.id]) {
        const res = await call(client, 'agent_stats', { id });
        expect(res.isError).toBeFalsy();
        expect(res.structuredContent).toEqual(rest.body);
      }
    }
  });

  it('agent_stats answers what names no agent as the route does, and a blank or overlong name as invalid', async () => {
    const client = await connect(acct.key);
    expect((await t.request().get('/v1/agents/nobody-here/stats').set(bearer(acct.key))).status).toBe(404);
    const unknown = await call(client, 'agent_stats', { id: 'nobody-here' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toBe('Agent not found');
    for (const id of ['   ', 'n'.repeat(256), 42]) {
      const res = await call(client, 'agent_stats', { id });
      expect(res.isError).toBe(true);
      expect(res.structuredContent).toMatchObject({ type: 'validation_error', code: 422, details: [expect.objectContaining({ field: 'id' })] });
    }
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

  const rpc = (body: unknown) =>
    t.request().post('/mcp').set(bearer(acct.key)).set('Accept', 'application/json, text/event-stream').set('Content-Type', 'application/json').send(JSON.stringify(body));
  const toolsCall = (id: number, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });

  it('answers unusable tools/call params with -32602 and a readable message, running nothing', async () => {
    const memories = async () => Number((await t.ctx.db.knex('memories').where({ account_id: acct.accountId }).count({ n: '*' }))[0]!.n);
    const before = await memories();
    const cases: [unknown, RegExp][] = [
      [{ name: 'memory_store', arguments: null }, /^Invalid params: "arguments" of memory_store must be an object of named arguments, not null$/],
      [{ name: 'memory_store', arguments: ['content'] }, /not an array$/],
      [{ name: 'memory_store', arguments: 'remember this' }, /not string$/],
      [{ name: 42, arguments: {} }, /^Invalid params: "name" must be a tool name \(a string\), not number$/],
      [{ name: 'no_such_tool', arguments: {} }, /^Unknown tool: no_such_tool$/],
      [null, /^Invalid params: tools\/call takes an object/],
    ];
    for (const [i, [params, message]] of cases.entries()) {
      const res = await rpc(toolsCall(i + 1, params)).expect(200);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: i + 1, error: { code: -32602, message: expect.stringMatching(message) } });
    }
    // A batch is no JSON object: the envelope, and nothing in it runs.
    const batch = await rpc([toolsCall(10, { name: 'memory_store', arguments: { content: 'batched, never stored' } }), toolsCall(11, { name: 'memory_store', arguments: null })]);
    expect(batch.status).toBe(400);
    expect(batch.body).toMatchObject({ type: 'bad_request', code: 400 });
    expect(await memories()).toBe(before);
    // Omitted arguments are the tool's to judge: a tool error naming the missing field.
    const omitted = await rpc(toolsCall(12, { name: 'memory_store' })).expect(200);
    expect(omitted.body.result).toMatchObject({ isError: true, structuredContent: { type: 'validation_error', code: 422 } });
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

  it('is rate limited like the REST API: 429 with Retry-After and the envelope past the limit', async () => {
    const limited = await createTestApp({ RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const key = (await createAccount(limited.ctx)).key;
      const list = () =>
        limited
          .request()
          .post('/mcp')
          .set(bearer(key))
          .set('Accept', 'application/json, text/event-stream')
          .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      expect((await list()).status).toBe(200);
      expect((await list()).status).toBe(200);
      const refused = await list();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.body).toMatchObject({ type: 'rate_limit_exceeded', code: 429 });
    } finally {
      await limited.close();
    }
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
