import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { TOOLS } from './tools';

type JsonRpcMessage = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
type JsonRpcError = { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string } };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/**
 * Why a tools/call's params are unusable (a readable sentence), or undefined. The SDK would refuse
 * these with its schema's raw dump as an internal error (-32603); the arguments' own values are the
 * tool's to judge (a tool error naming each field, so a model can correct itself).
 */
export function toolCallParamsProblem(params: unknown): string | undefined {
  if (!isPlainObject(params)) return `Invalid params: tools/call takes an object with "name" and "arguments", not ${describe(params)}`;
  const { name, arguments: args } = params;
  if (typeof name !== 'string') return `Invalid params: "name" must be a tool name (a string), not ${describe(name)}`;
  if (!TOOLS.some((t) => t.name === name)) return `Unknown tool: ${name.slice(0, 100)}`;
  if (args !== undefined && !isPlainObject(args)) return `Invalid params: "arguments" of ${name} must be an object of named arguments, not ${describe(args)}`;
  return undefined;
}

/**
 * The JSON-RPC answer for a POST /mcp message that is a tools/call with unusable params, or
 * undefined to let the SDK handle it. (Batches never get here: a body must be a JSON object.)
 */
export function refuseBadToolCall(body: unknown): JsonRpcError | undefined {
  if (!isPlainObject(body)) return undefined;
  const message = body as JsonRpcMessage;
  if (message.method !== 'tools/call' || !('id' in message)) return undefined;
  const problem = toolCallParamsProblem(message.params);
  if (!problem) return undefined;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  return { jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidParams, message: problem } };
}
