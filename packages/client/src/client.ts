import createClient from 'openapi-fetch';
import type { paths } from './generated/schema';
import { AmsError } from './errors';
import { retryingFetch, RetryOptions } from './retrying-fetch';

/** The JSON body an operation takes. */
export type JsonBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
/** The JSON body an operation answers with status `S`. */
export type Ok<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer R } } };
}
  ? R
  : never;
/** The query string an operation takes. */
export type Query<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type Memory = Ok<'/v1/memories/{id}', 'get', 200>;
export type CreateMemoryInput = JsonBody<'/v1/memories', 'post'>;
export type SearchInput = JsonBody<'/v1/memories/search', 'post'>;
export type SearchResults = Ok<'/v1/memories/search', 'post', 200>;
export type ListMemoriesQuery = Omit<Query<'/v1/memories', 'get'>, 'cursor' | 'offset'>;
export type MemorySummary = Ok<'/v1/memories', 'get', 200>['data'][number];
/** One version of a memory (GET /v1/memories/{id}/history): what changed, before and after, who and when. */
export type MemoryVersion = Ok<'/v1/memories/{id}/history', 'get', 200>['data'][number];
export type RetieringSettings = Ok<'/v1/retiering', 'get', 200>;
export type RetieringRules = JsonBody<'/v1/retiering', 'patch'>;
export type RetieringRun = Ok<'/v1/retiering/run', 'post', 200>;
export type TierMoves = Ok<'/v1/retiering/moves', 'get', 200>;
/** An account's limits in force, its own overrides and the defaults (GET/PUT/PATCH /v1/admin/accounts/{id}/limits). */
export type AccountLimits = Ok<'/v1/admin/accounts/{id}/limits', 'get', 200>;
/** The limits to change (PATCH; null: back to the default). */
export type AccountLimitsPatch = JsonBody<'/v1/admin/accounts/{id}/limits', 'patch'>;
/** An account's usage against its limits (GET /v1/usage, GET /v1/admin/usage). */
export type AccountUsage = Ok<'/v1/usage', 'get', 200>;
/** An import's job (POST /v1/import answers it 202; the NDJSON upload itself is a streaming call). */
export type ImportJob = Ok<'/v1/import/jobs/{id}', 'get', 200>;

export interface ClientOptions extends RetryOptions {
  /** e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
}

/** The body of a successful call, or the API's error as an AmsError. */
async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw AmsError.fromResponse(response.status, error);
  return data as T;
}

/**
 * The client: `raw` is the typed openapi-fetch client for every operation of the document; the
 * few hand-written calls below cover the common path.
 */
export function createMemoryClient(opts: ClientOptions) {
  const raw = createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${opts.apiKey}` },
    fetch: retryingFetch(opts.fetch ?? globalThis.fetch, opts),
  });

  const memories = {
    create: (body: CreateMemoryInput) => unwrap<Memory>(raw.POST('/v1/memories', { body })),
    get: (id: string) => unwrap<Memory>(raw.GET('/v1/memories/{id}', { params: { path: { id } } })),
    search: (body: SearchInput) => unwrap<SearchResults>(raw.POST('/v1/memories/search', { body })),
    delete: (id: string) => unwrap<void>(raw.DELETE('/v1/memories/{id}', { params: { path: { id } } })),
    /** Every memory matching `query`, newest first, fetched page by page through next_cursor. */
    async *list(query: ListMemoriesQuery = {}): AsyncGenerator<MemorySummary> {
      let cursor: string | undefined;
      do {
        const page = await unwrap(raw.GET('/v1/memories', { params: { query: { ...query, ...(cursor ? { cursor } : {}) } } }));
        yield* page.data;
        cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined;
      } while (cursor);
    },
    /** A memory's versions, newest first, page by page (a deleted memory's too). */
    async *history(id: string, opts: { pageSize?: number } = {}): AsyncGenerator<MemoryVersion> {
      let cursor: string | undefined;
      do {
        const query = { limit: opts.pageSize ?? 100, ...(cursor ? { cursor } : {}) };
        const page = await unwrap(raw.GET('/v1/memories/{id}/history', { params: { path: { id }, query } }));
        yield* page.data;
        cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined;
      } while (cursor);
    },
    /** Brings the memory back to `version`, as a new version; the memory as restored. */
    restoreVersion: (id: string, version: number) =>
      unwrap<Memory>(raw.POST('/v1/memories/{id}/history/{version}/restore', { params: { path: { id, version: String(version) } } })),
  };
  const imports = {
    /** An import job's progress: exact at every moment (its counters commit with its records). */
    job: (id: string) => unwrap<ImportJob>(raw.GET('/v1/import/jobs/{id}', { params: { path: { id } } })),
  };
  /** Re-tiering by use and age (docs/api.md, "Re-tiering"). */
  const retiering = {
    settings: () => unwrap<RetieringSettings>(raw.GET('/v1/retiering')),
    update: (body: RetieringRules) => unwrap<RetieringSettings>(raw.PATCH('/v1/retiering', { body })),
    run: () => unwrap<RetieringRun>(raw.POST('/v1/retiering/run')),
    moves: (query: Query<'/v1/retiering/moves', 'get'> = {}) => unwrap<TierMoves>(raw.GET('/v1/retiering/moves', { params: { query } })),
  };
  /** Usage, and the operator's per-account limits (docs/api.md, "Account limits and usage"). */
  const accounts = {
    usage: () => unwrap<AccountUsage>(raw.GET('/v1/usage')),
    /** Any account's usage: the operator's admin key. */
    usageOf: (account: string) => unwrap<AccountUsage>(raw.GET('/v1/admin/usage', { params: { query: { account } } })),
    limits: (id: string) => unwrap<AccountLimits>(raw.GET('/v1/admin/accounts/{id}/limits', { params: { path: { id } } })),
    /** Changes the limits given; the others stay. */
    changeLimits: (id: string, body: AccountLimitsPatch) => unwrap<AccountLimits>(raw.PATCH('/v1/admin/accounts/{id}/limits', { params: { path: { id } }, body })),
  };
  return { raw, memories, imports, retiering, accounts };
}

export type MemoryClient = ReturnType<typeof createMemoryClient>;
