/**
 * A thin typed layer over the public REST API (no generated client exists yet). The key travels
 * only in the Authorization header; it never goes into a URL, and nothing here logs.
 */

interface ApiErrorBody {
  type?: string;
  message?: string;
  code?: number;
  request_id?: string;
  details?: Array<{ field: string; message: string }>;
}

/** A failed call, carrying what the API said: status, type, message, request id and field details. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly requestId: string | null,
    readonly details: Array<{ field: string; message: string }> = [],
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface Timed<T> {
  data: T;
  ms: number;
  requestId: string | null;
}

function toQueryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** Times a refused read is asked again. */
const READ_RETRIES = 2;

/** The wait a 503's Retry-After asks for (seconds), 1 s when absent, at most 5 s. */
const retryAfterMs = (res: Response): number => Math.min(5, Number(res.headers.get('Retry-After')) || 1) * 1000;

export class ApiClient {
  constructor(
    private readonly key: string | null,
    private readonly onUnauthorized: () => void = () => undefined,
  ) {}

  async timed<T>(method: string, path: string, body?: unknown): Promise<Timed<T>> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.key) headers.Authorization = `Bearer ${this.key}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const started = performance.now();
    let res: Response;
    for (let attempt = 1; ; attempt++) {
      try {
        res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
      } catch {
        throw new ApiFailure(0, 'network_error', 'Could not reach the API. Is the server running?', null);
      }
      // A read the server refused before running it (503, shedding load) is asked again after its
      // Retry-After, as a client should: a page's panels load together, and one may land in a burst.
      if (res.status !== 503 || method !== 'GET' || attempt > READ_RETRIES) break;
      await new Promise((r) => setTimeout(r, retryAfterMs(res)));
    }
    const ms = performance.now() - started;
    const requestId = res.headers.get('X-Request-ID');
    const text = res.status === 204 ? '' : await res.text();
    let parsed: unknown = undefined;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    if (!res.ok) {
      const err = (parsed ?? {}) as ApiErrorBody;
      if (res.status === 401) this.onUnauthorized();
      throw new ApiFailure(
        res.status,
        err.type ?? 'http_error',
        err.message ?? `The API answered ${res.status} ${res.statusText}`,
        err.request_id ?? requestId,
        Array.isArray(err.details) ? err.details : [],
      );
    }
    return { data: parsed as T, ms, requestId };
  }

  async get<T>(path: string, query?: Query): Promise<T> {
    return (await this.timed<T>('GET', path + toQueryString(query))).data;
  }

  async post<T>(path: string, body?: unknown): Promise<T> {
    return (await this.timed<T>('POST', path, body ?? {})).data;
  }

  async patch<T>(path: string, body: unknown): Promise<T> {
    return (await this.timed<T>('PATCH', path, body)).data;
  }

  async del(path: string, query?: Query): Promise<void> {
    await this.timed<unknown>('DELETE', path + toQueryString(query));
  }
}
