import type { IncomingMessage } from 'node:http';
import { Request, RequestHandler, Router } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, ErrorDetail, isApiError, VERSION } from '@ams/core';
import { hasScope } from '@ams/accounts';
import type { AppContext, AuthContext } from '../context';
import { toJsonSchema } from '../openapi/json-schema';
import { json, RouteDoc, RouteDocs } from '../openapi/route-docs';
import { refuseBadToolCall, toolCallParamsProblem } from './tool-call-params';
import { TOOLS, ToolDef } from './tools';

/** The error a tool call ends with, as MCP tool errors carry it: the API's message and details. */
function toolError(err: unknown, ctx: AppContext, tool: string): CallToolResult {
  if (!isApiError(err)) {
    ctx.logger.error('mcp tool failed', { tool, error: err instanceof Error ? err.message : String(err) });
  }
  const body: { type: string; code: number; message: string; details?: ErrorDetail[] } = isApiError(err)
    ? { type: err.type, code: err.status, message: err.message, ...(err.details ? { details: err.details } : {}) }
    : { type: 'internal_error', code: 500, message: 'Internal server error' };
  const details = body.details?.map((d) => `${d.field}: ${d.message}`).join('; ');
  return {
    isError: true,
    content: [{ type: 'text', text: details ? `${body.message}: ${details}` : body.message }],
    structuredContent: body,
  };
}

async function callTool(ctx: AppContext, auth: AuthContext, tool: ToolDef, args: Record<string, unknown>, req: Request): Promise<CallToolResult> {
  try {
    if (!hasScope(auth.scopes, tool.scope)) {
      return toolError(new ApiError('authorization_error', `Insufficient scope. Required: ${tool.scope}`), ctx, tool.name);
    }
    const result = await tool.run(ctx, auth, args, req);
    const structured = result !== null && typeof result === 'object' && !Array.isArray(result) ? (result as Record<string, unknown>) : { result };
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: structured };
  } catch (err) {
    return toolError(err, ctx, tool.name);
  }
}

/** One MCP server per request (stateless Streamable HTTP): any API process can answer any call. */
function mcpServer(ctx: AppContext, auth: AuthContext, req: Request): Server {
  const server = new Server({ name: 'agent-memory-service', version: VERSION }, { capabilities: { tools: {} } });
  // A key sees the tools its scopes allow; calling another still answers with the scope error.
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.filter((t) => hasScope(auth.scopes, t.scope)).map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: toJsonSchema(t.input) as { type: 'object' },
      annotations: { readOnlyHint: t.scope === 'read', destructiveHint: t.scope === 'delete' },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, toolCallParamsProblem(request.params)!);
    return callTool(ctx, auth, tool, request.params.arguments ?? {}, req);
  });
  return server;
}

export const mcpOpenApi: RouteDocs = Object.fromEntries(
  (['POST', 'GET', 'DELETE'] as const).map((method) => [
    `${method} /mcp`,
    {
      summary: `Model Context Protocol (Streamable HTTP, stateless): ${method === 'POST' ? 'JSON-RPC messages' : 'no server-initiated stream or session (405)'}`,
      tag: 'mcp',
      dispatches: true,
      description: 'Tools over the same service, keys, scopes and rate limits as the REST API. Connect an MCP client to this URL.',
      responses: {
        ...(method === 'POST'
          ? { 200: { description: 'A JSON-RPC response (JSON or an SSE stream)', schema: json } }
          : { 405: { description: 'Not offered by this stateless server (JSON-RPC error body)', schema: json } }),
        401: {
          description:
            "No valid credentials. With an API key: the API's error. Otherwise, when OAuth is on (`OAUTH_PUBLIC_URL`), the bearer challenge MCP hosts start OAuth from: an OAuth error body (`error`, `error_description`)",
          headers: { 'WWW-Authenticate': 'With OAuth on and no API key: `Bearer error="invalid_token", ..., resource_metadata="<the protected resource metadata URL>"`' },
          schema: json,
          replacesError: true,
        },
      } as RouteDoc['responses'],
    } satisfies RouteDoc,
  ]),
);

/** POST/GET/DELETE /mcp, behind requireAuth and the API rate limit like every other route. */
export function mcpRouter(ctx: AppContext): Router {
  const router = Router();
  const handle: RequestHandler = async (req, res) => {
    const refusal = refuseBadToolCall(req.body);
    if (refusal) {
      res.json(refusal);
      return;
    }
    const server = mcpServer(ctx, req.auth!, req);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      // The client is gone: a close that fails has nothing left to tell it.
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    // Our req.auth is the API's own; the SDK would only pass it through as authInfo.
    await transport.handleRequest(req as unknown as IncomingMessage, res, req.body);
  };
  // Stateless: no server-initiated stream to GET and no session to DELETE; the spec's answer is 405.
  const notOffered: RequestHandler = (_req, res) => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; POST JSON-RPC messages' }, id: null });
  };
  router.post('/mcp', handle);
  router.get('/mcp', notOffered);
  router.delete('/mcp', notOffered);
  return router;
}
