import { bearer, type TestAccount, type TestApp } from './test-app';

/** What an MCP tools/call answers, as the SDK's client returns it. */
export type McpToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };
export type McpCall = (name: string, args: Record<string, unknown>) => Promise<McpToolResult>;

/**
 * Calls every tool of the MCP server once, end to end, through `call` (an SDK client over either
 * transport), checking each result against the service. Needs a full-scope key's account with no
 * agent named `mcp-agent` yet.
 */
export async function mcpToolTour(call: McpCall, t: TestApp, acct: TestAccount): Promise<void> {
  const ok = async (name: string, args: Record<string, unknown>) => {
    const res = await call(name, args);
    if (res.isError) throw new Error(`${name} failed: ${res.content[0]?.text}`);
    return res.structuredContent!;
  };
  const memory = await ok('memory_store', { content: 'The user prefers PostgreSQL for analytics', agent_id: 'mcp-agent' });
  expect(memory).toMatchObject({ object: 'memory', content: 'The user prefers PostgreSQL for analytics' });
  const id = memory.id as string;
  expect(await ok('memory_get', { id })).toMatchObject({ id });
  expect(((await ok('memory_list', { agent_id: 'mcp-agent' })).data as unknown[]).length).toBe(1);
  const search = await ok('memory_search', { query: 'PostgreSQL analytics', search_mode: 'hybrid', agent_id: 'mcp-agent' });
  expect((search.data as Array<{ memory: { id: string } }>)[0]!.memory.id).toBe(id);
  expect(await ok('memory_update', { id, importance: 0.9 })).toMatchObject({ id, importance: 0.9 });
  const history = await ok('memory_history', { id });
  expect((history.data as Array<{ version: number }>).map((v) => v.version)).toEqual([2, 1]);
  expect(await ok('memory_restore_version', { id, version: 1 })).toMatchObject({ id, importance: 0.5, version: 3 });
  expect((await ok('context_build', { query: 'PostgreSQL analytics', agent_id: 'mcp-agent', threshold: 0 })).context).toContain('PostgreSQL');

  const session = await ok('session_start', { agent_id: 'mcp-agent', title: 'MCP session' });
  expect(await ok('session_end', { id: session.id, summary: 'done' })).toMatchObject({ id: session.id, status: 'ended' });

  await ok('decision_record', { title: 'Use PostgreSQL for analytics', rationale: 'pgvector and SQL in one place' });
  expect(((await ok('decision_check', { query: 'PostgreSQL analytics' })).data as unknown[]).length).toBeGreaterThan(0);

  const project = await t.request().post('/v1/projects').set(bearer(acct.key)).send({ slug: 'mcp-proj', name: 'MCP project' }).expect(201);
  const pattern = await t.request().post('/v1/patterns').set(bearer(acct.key)).send({ title: 'Retry with jitter', description: 'Backoff for retries' }).expect(201);
  expect(((await ok('pattern_search', { query: 'retry backoff' })).data as unknown[]).length).toBeGreaterThan(0);
  await ok('pattern_adopt', { id: pattern.body.id, project: project.body.slug });

  const entity = await ok('entity_create', { name: 'Zanzibar Store', entity_type: 'technology' });
  expect(await ok('entity_link', { entity_id: entity.id, memory_id: id })).toMatchObject({ entity_id: entity.id, memory_id: id });

  const agents = (await ok('agent_list', {})).data as Array<{ id: string; name: string }>;
  const agent = agents.find((a) => a.name === 'mcp-agent')!;
  expect(await ok('agent_stats', { id: agent.id })).toBeDefined();

  expect(await ok('memory_delete', { id })).toEqual({ id, deleted: true });
  const gone = await call('memory_get', { id });
  expect(gone.isError).toBe(true);
  expect(gone.content[0]!.text).toBe('Memory not found');
}
