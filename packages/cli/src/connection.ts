import { Agent, setGlobalDispatcher } from 'undici';
import { usageError } from './cli-context';

/** Seconds to wait for a TCP connection, then for each answer (headers, or the next piece of a body). */
export const DEFAULT_CONNECT_TIMEOUT_S = 10;
// Past the API's own 30 s request deadline, so a slow request ends with the server's answer, not ours.
export const DEFAULT_READ_TIMEOUT_S = 60;

/** Any `scheme://user:password@` in `text` with the credentials replaced: nothing the CLI prints carries them. */
export const redactCredentials = (text: string): string => text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, '$1redacted@');

/** The API base URL, or a usage error (exit 2) that never repeats credentials. */
export function parseBaseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`--url ${JSON.stringify(redactCredentials(raw))} is not a URL (e.g. http://127.0.0.1:8080)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`--url must be http:// or https://, not ${url.protocol}//`);
  if (url.username || url.password) throw usageError('--url must not contain credentials (user:password@): pass the API key with --key or AMS_API_KEY');
  return url;
}

/** A timeout option in seconds (a positive number), or a usage error naming it. */
export function parseSeconds(option: string, raw: string | number): number {
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) throw usageError(`${option} must be a positive number of seconds, not ${JSON.stringify(String(raw))}`);
  return seconds;
}

/** Every request this process makes (fetch, the typed client, the MCP bridge) gives up after these. */
export function useTimeouts(connectSeconds: number, readSeconds: number): void {
  setGlobalDispatcher(new Agent({ connect: { timeout: connectSeconds * 1000 }, headersTimeout: readSeconds * 1000, bodyTimeout: readSeconds * 1000 }));
}

/** Which timeout a failed request hit, from undici's error codes (on the error or its cause). */
export function timeoutOf(err: unknown): 'connect' | 'read' | undefined {
  const codes = [(err as { code?: string }).code, (err as { cause?: { code?: string } }).cause?.code];
  if (codes.includes('UND_ERR_CONNECT_TIMEOUT')) return 'connect';
  if (codes.includes('UND_ERR_HEADERS_TIMEOUT') || codes.includes('UND_ERR_BODY_TIMEOUT')) return 'read';
  return undefined;
}
