import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * `ams mcp`: MCP on stdin/stdout for desktop hosts, each request passed to the API's /mcp endpoint
 * (same key, scopes and rate limits; the tools are the server's). Nothing is served twice.
 */
export async function runStdioBridge(url: string, key: string, version: string): Promise<void> {
  const upstream = new Client({ name: 'ams-stdio-bridge', version });
  await upstream.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  const server = new Server({ name: 'agent-memory-service', version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (req) => upstream.listTools(req.params));
  server.setRequestHandler(CallToolRequestSchema, (req) => upstream.callTool(req.params));
  const transport = new StdioServerTransport();
  transport.onclose = () => void upstream.close().catch(() => undefined);
  await server.connect(transport);
}
