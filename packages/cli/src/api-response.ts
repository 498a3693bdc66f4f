import { AmsError } from '@agent-memory/client';

/** The API's error envelope of a failed streaming call, as the typed client's AmsError. */
export async function apiError(res: Response): Promise<AmsError> {
  const body: unknown = await res.json().catch(() => undefined);
  return AmsError.fromResponse(res.status, body);
}

/** A streaming call the typed client does not make (NDJSON in or out), with the key. */
export function streamingFetch(url: string, path: string, key: string, init: RequestInit & { duplex?: 'half' } = {}): Promise<Response> {
  return fetch(new URL(path, url), { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
}
