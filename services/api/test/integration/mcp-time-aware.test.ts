import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, createAccount, createTestApp, McpToolResult, TestAccount, TestApp, waitFor } from '@ams/testing';

let t: TestApp;
let server: Server;
let client: Client;
let acct: TestAccount;

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as McpToolResult;
const ids = (res: McpToolResult) => (res.structuredContent as { data: Array<{ memory: { id: string } }> }).data.map((d) => d.memory.id);

beforeAll(async () => {
  t = await createTestApp();
  acct = await createAccount(t.ctx);
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  client = new Client({ name: 'ams-test', version: '1.0.0' });
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: bearer(acct.key) } }));
});
afterAll(async () => {
  await client.close();
  await new Promise((r) => server.close(r));
  await t.close();
});

describe('MCP: time-aware recall and tier pins', () => {
  it('memory_store supersedes; memory_search and context_build answer as_of; memory_update unpins a tier', async () => {
    const old = await call('memory_store', { content: 'The on-call rotation changes every Monday', agent_id: 'mcp-time', tier: 'cold' });
    expect(old.structuredContent).toMatchObject({ tier: 'cold', tier_pinned: true });
    const oldId = (old.structuredContent as { id: string }).id;
    const t0 = Date.now();
    await waitFor(() => Date.now() > t0 + 2, 1_000, 'the clock to move');
    const before = new Date().toISOString();
    await waitFor(() => Date.now() > Date.parse(before) + 2, 1_000, 'the clock to move past as_of');
    const replacement = await call('memory_store', { content: 'The on-call rotation changes every Thursday', agent_id: 'mcp-time', supersedes: oldId });
    expect(replacement.structuredContent).toMatchObject({ supersedes: oldId });
    const newId = (replacement.structuredContent as { id: string }).id;

    const then = await call('memory_search', { query: 'on-call rotation', agent_id: 'mcp-time', as_of: before });
    expect(ids(then)).toEqual([oldId]);
    expect(ids(await call('memory_search', { query: 'on-call rotation', agent_id: 'mcp-time' }))).toEqual([newId]);
    const ranked = await call('memory_search', { query: 'on-call rotation', agent_id: 'mcp-time', recency_half_life: 3_600, include_superseded: true, debug: true });
    expect((ranked.structuredContent as { data: Array<{ score_breakdown: { factors: { recency: number } } }> }).data[0]!.score_breakdown.factors.recency).toBeGreaterThan(0.9);

    const context = await call('context_build', { query: 'on-call rotation', agent_id: 'mcp-time', threshold: 0, as_of: before });
    expect((context.structuredContent as { memories: Array<{ id: string }> }).memories.map((m) => m.id)).toEqual([oldId]);

    const unpinned = await call('memory_update', { id: oldId, tier_pinned: false });
    expect(unpinned.structuredContent).toMatchObject({ tier: 'cold', tier_pinned: false });
  });

  it('answers a future or malformed as_of with a tool error naming as_of', async () => {
    for (const as_of of ['2999-01-01T00:00:00Z', 'not a date']) {
      const res = await call('memory_search', { query: 'anything', as_of });
      expect(res.isError).toBe(true);
      expect(res.structuredContent).toMatchObject({ type: 'validation_error', code: 422, details: [expect.objectContaining({ field: 'as_of' })] });
    }
  });
});
