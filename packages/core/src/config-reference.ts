import { CONFIG_SCHEMA_DESCRIPTION } from './config';

/**
 * What each configuration variable means, for the table in docs/operations.md. Types, defaults and
 * limits come from the joi schema; only the meaning (and a default the schema computes) is written
 * here. `scripts/config-table.ts` writes the table; a test fails when a variable has no entry here or
 * the committed table differs from the generated one.
 */
const CONFIG_MEANINGS: Readonly<Record<string, { meaning: string; default?: string }>> = {
  NODE_ENV: { meaning: '`production`: JSON logs by default' },
  HOST: { meaning: 'address the API listens on' },
  PORT: { meaning: 'port the API listens on' },
  DATABASE_URL: { meaning: 'PostgreSQL ≥ 15 with pgvector ≥ 0.7 (split mode); unset: embedded PGlite under `DATA_DIR`' },
  DATA_DIR: { meaning: 'the embedded store, the webhook secret key file and the bootstrap admin key file' },
  DB_POOL_MAX: { meaning: 'PostgreSQL connections per process' },
  DB_PREPARED_STATEMENTS: { meaning: 'search statements and single creates as named prepared statements; `false` behind a pooler that moves statements between server connections (PgBouncer in transaction mode before 1.21)' },
  DB_CANCEL_ABANDONED_READS: { meaning: 'cancel the running statement of a read whose client left or whose deadline passed; `false`: it runs to its end' },
  DATABASE_REPLICA_URLS: { meaning: 'comma-separated streaming replicas of `DATABASE_URL` that serve searches, lists, gets, stats and context builds; a key reads its own writes ([Read replicas](#read-replicas)); needs `DATABASE_URL`', default: 'none' },
  DATABASE_REPLICA_MAX_LAG_MS: { meaning: "the staleness bound: a replica further behind the primary is skipped, and after a key's write its reads stay on the primary until a replica has replayed it" },
  DATABASE_REPLICA_CHECK_INTERVAL_MS: { meaning: "how often each API process reads each replica's replay position (its lag and state); below `DATABASE_REPLICA_MAX_LAG_MS`" },
  REDIS_URL: { meaning: 'queues (with `DATABASE_URL`) and rate limits shared by every API process; unset: in-process workers and limits' },
  REDIS_KEY_PREFIX: { meaning: 'prefix of every Redis key' },
  LOG_LEVEL: { meaning: 'winston log level' },
  LOG_FORMAT: { meaning: 'log lines as JSON or for people', default: '`json` in production, else `pretty`' },
  TRUST_PROXY: { meaning: 'Express `trust proxy` (client IPs behind a load balancer): a boolean, a hop count or addresses' },
  RATE_LIMIT_PER_MINUTE: { meaning: 'requests per API key per minute' },
  UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: { meaning: 'requests per minute per IP without a valid key' },
  REGISTER_RATE_LIMIT_PER_MINUTE: { meaning: 'registrations per minute per IP' },
  ACCOUNT_MAX_MEMORIES: { meaning: "an account's live memories, unless the operator set its own; `0`: unlimited ([Account limits and usage](#account-limits-and-usage))" },
  ACCOUNT_MAX_STORAGE_BYTES: { meaning: "an account's stored bytes (content + metadata + 4 per vector dimension), unless the operator set its own; `0`: unlimited" },
  ACCOUNT_REQUESTS_PER_MINUTE: { meaning: "requests per minute per account, all its keys together (beside `RATE_LIMIT_PER_MINUTE` per key); `0`: unlimited" },
  ACCOUNT_SEARCHES_PER_DAY: { meaning: 'searches per account per UTC day; `0`: unlimited' },
  ACCOUNT_EMBEDDINGS_PER_DAY: { meaning: 'texts embedded per account per UTC day; `0`: unlimited' },
  ACCOUNT_FAIR_SHARE_WEIGHT: { meaning: "an account's share of admission when the API is busy, relative to others'" },
  USAGE_FLUSH_INTERVAL_MS: { meaning: "how often each API process adds its requests, searches and embeddings counts to the database" },
  METRICS_TOP_ACCOUNTS: { meaning: 'accounts named in per-account metrics (the busiest today); the rest are summed as `account="other"`' },
  IMPORT_STALE_AFTER_MS: { meaning: 'a running import job without a heartbeat this long is failed by the next sweep ([Import jobs](#import-jobs))' },
  IMPORT_MAX_BYTES: { meaning: 'the largest import upload accepted; a larger one is refused with 413 before any job starts, and the part received is deleted ([Import jobs](#import-jobs))', default: '`1073741824` (1 GiB)' },
  API_KEY_CACHE_MS: { meaning: "how long a process reuses a key's row; a key revoked through another process stops within this; `0`: read on every request" },
  AGENT_CACHE_MS: { meaning: "how long a process reuses the id an agent name (or id) resolved to; a create still refuses a deleted agent at once, a read or a create by a name renamed through another process follows within this ([Agents by id or name](api.md#agents-by-id-or-name)); `0`: looked up every time" },
  MAX_IN_FLIGHT_REQUESTS: { meaning: 'requests handled at once per API process; `0`: no bound ([Overload](#overload))', default: 'CPU cores, at least 2' },
  MAX_IN_FLIGHT_PER_ACCOUNT: { meaning: 'slots one account may hold at once; `0`: all of them ([Overload](#overload))', default: '`0`' },
  MAX_QUEUED_REQUESTS: { meaning: "requests that may wait for a slot, each account in its own queue and the accounts in turn; beyond it the busiest account's newest waiter, or the newcomer if it is the busiest, gets 503 at once; `0`: nobody waits", default: '16 × `MAX_IN_FLIGHT_REQUESTS`' },
  MAX_QUEUE_DELAY_MS: { meaning: 'the latency budget: a request expected to wait longer than this for a slot gets 503 at once ([Overload](#overload))', default: '`500`' },
  MAX_QUEUE_WAIT_MS: { meaning: "the former name of `MAX_QUEUE_DELAY_MS`, read when that is unset", default: 'unset' },
  MAX_EVENT_LOOP_DELAY_MS: { meaning: 'mean event-loop delay over the last second past which new requests get 503; `0`: off' },
  MAX_DB_POOL_WAIT_MS: { meaning: 'shortest wait for a database connection over the last half second past which new requests get 503; `0`: off' },
  REQUEST_TIMEOUT_MS: { meaning: 'per-request deadline: past it the client gets 503 and reads stop; `0`: off' },
  SEARCH_TIMEOUT_MS: { meaning: "the deadline of `POST /v1/memories/search`, its own: past it the search's statement is cancelled and the client gets 503; below `REQUEST_TIMEOUT_MS` when that is on; `0` (only with `REQUEST_TIMEOUT_MS=0`): off ([Bounds on a search](api.md#bounds-on-a-search))", default: 'a third of `REQUEST_TIMEOUT_MS` (10 s); 10 s when that is `0`' },
  EMBEDDING_PROVIDER: { meaning: '`transformers` (local ONNX model) or `lexical` (deterministic, no model files)' },
  EMBEDDING_MODEL: { meaning: 'the model, read from `MODEL_DIR/<model>/`' },
  MODEL_DIR: { meaning: 'where model files live' },
  EMBEDDING_ALLOW_REMOTE_MODELS: { meaning: 'download a missing model at start-up', default: '`true` embedded, `false` split' },
  EMBEDDING_MODEL_HOST: { meaning: "where models are downloaded from (the hub's layout; a mirror works)" },
  EMBEDDING_QUERY_CACHE_SIZE: { meaning: 'search query embeddings kept per API process (LRU); `0`: off' },
  EMBEDDING_QUANTIZED: { meaning: 'load `onnx/model_quantized.onnx` rather than `onnx/model.onnx`' },
  EMBEDDING_THREAD: { meaning: "where the model runs: `worker`, a thread of its own per process, or `main`, the event loop's thread" },
  EMBEDDING_INTRA_OP_THREADS: {
    meaning:
      "ONNX Runtime's threads per model call. 1: no thread pool spinning between calls beside the event loop and PostgreSQL (about half the CPU per query embed on a 2-core box); raise it on a box with spare cores for a lower single-call latency; 0: the runtime's own default (one per core)",
  },
  EMBEDDING_WORKER_CONCURRENCY: { meaning: 'batches in the model at once per worker' },
  EMBEDDING_BATCH_SIZE: { meaning: 'memories a worker claims per batch' },
  EMBEDDING_BATCH_WAIT_MS: { meaning: 'how long a busy worker waits for more work to share a batch (an idle one claims at once)' },
  EMBEDDING_MAX_ATTEMPTS: { meaning: 'attempts before a memory is `failed`' },
  EMBEDDING_RETRY_BASE_MS: { meaning: "first retry's backoff, doubling after each failure" },
  EMBEDDING_BATCH_TIMEOUT_MS: { meaning: 'a model call taking longer fails its batch' },
  EMBEDDING_STUCK_AFTER_MS: { meaning: "a claim without a heartbeat this long is a dead worker's" },
  EMBEDDING_RECONCILE_INTERVAL_MS: { meaning: 'how often workers sweep the database for unannounced, retried and abandoned work' },
  EMBEDDING_WORKER_METRICS_PORT: { meaning: "the embedding worker's Prometheus `/metrics`; `0`: off" },
  EMBEDDING_MODEL_POLL_MS: { meaning: 'how often each process reads the active model and looks for a re-embed run' },
  MEMORY_SWEEP_INTERVAL_MS: { meaning: 'how often expired memories are soft-deleted (`memory.expired`) and old memory versions pruned; reads leave expired memories out at once' },
  MEMORY_HISTORY_RETENTION_DAYS: { meaning: "memory versions older than this are pruned (a memory's current version never is); `0`: kept for ever" },
  MEMORY_HISTORY_MAX_VERSIONS: { meaning: 'versions kept per memory, newest first; `0`: no bound' },
  WEBHOOK_TIMEOUT_MS: { meaning: 'a delivery not answered 2xx within this is a failure' },
  WEBHOOK_RETRY_DELAYS_MS: { meaning: 'waits before each retry; then the delivery is `failed`' },
  WEBHOOK_ALLOW_LOOPBACK: { meaning: 'tests only: deliver to loopback receivers' },
  WEBHOOK_CA_FILE: { meaning: 'PEM file of an extra CA trusted for receivers (tests use it with a self-signed receiver)' },
  WEBHOOK_CONCURRENCY: { meaning: 'deliveries in flight per dispatcher' },
  WEBHOOK_RECONCILE_INTERVAL_MS: { meaning: 'how often the dispatcher sweeps the outbox' },
  RETIERING_INTERVAL_MS: { meaning: 'how often each account with re-tiering on is re-tiered (by the embedding worker, or the API in embedded mode); 0 turns the job off in this process' },
  RETIERING_BATCH_SIZE: { meaning: 'memories re-tiered per statement (each batch is its own short transaction; rows a writer holds are skipped until the next run)' },
  WEBHOOK_DISPATCHER_METRICS_PORT: { meaning: "the webhook dispatcher's Prometheus `/metrics`; `0`: off" },
  METRICS_PORT: { meaning: "the API's `/metrics` on a keyless listener of its own; unset: only on `PORT` with an admin key" },
  METRICS_HOST: { meaning: 'address of that listener' },
  WEBHOOK_SECRET_KEY: { meaning: 'seals webhook secrets at rest (32 bytes, base64)', default: 'a key file `DATA_DIR/webhook-secret.key`' },
  WEBHOOK_SECRET_KEYS_PREVIOUS: { meaning: 'previous keys, comma-separated, that still open rows during a rotation' },
  OAUTH_PUBLIC_URL: { meaning: 'the service\'s origin as browsers and MCP hosts reach it (https; http only for localhost); set, it turns on the built-in OAuth authorization server for remote MCP hosts ([OAuth for remote MCP hosts](#oauth-for-remote-mcp-hosts))', default: 'none: `/mcp` takes API keys only' },
  OAUTH_ISSUER: { meaning: 'an external OpenID Connect provider instead of the built-in server: `/mcp` takes its JWTs, checked against its discovery document and JWKS; needs `OAUTH_PUBLIC_URL` ([An external identity provider](#an-external-identity-provider))', default: 'none: the built-in server' },
  OAUTH_AUDIENCE: { meaning: "the audience (`aud`) the external provider's tokens must carry", default: '`OAUTH_PUBLIC_URL` + `/mcp`' },
  OAUTH_ACCOUNT_CLAIM: { meaning: "the claim of an external provider's token whose value is the account's email" },
  OAUTH_SCOPES_CLAIM: { meaning: "the claim of an external provider's token holding its scopes (a space-separated string or an array; only `read`, `write` and `delete` count)" },
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: { meaning: 'lifetime of an OAuth access token' },
  OAUTH_REFRESH_TOKEN_TTL_DAYS: { meaning: 'lifetime of an OAuth refresh token (each use replaces it with a new one)' },
  OAUTH_SIGNIN_ATTEMPTS_PER_ACCOUNT: { meaning: 'sign-in attempts for one account within `OAUTH_SIGNIN_LOCKOUT_SECONDS`; beyond them that account\'s sign-in waits out the rest of the window' },
  OAUTH_SIGNIN_LOCKOUT_SECONDS: { meaning: 'the per-account window, and so the longest anyone can keep an account from signing in by guessing (at most 900)' },
  OAUTH_SIGNIN_ATTEMPTS_PER_ADDRESS: { meaning: 'sign-in attempts from one client address within `OAUTH_SIGNIN_ADDRESS_WINDOW_SECONDS`' },
  OAUTH_SIGNIN_ADDRESS_WINDOW_SECONDS: { meaning: 'the per-address window' },
  BOOTSTRAP_ADMIN_KEY: { meaning: 'print an admin key on the first start of an empty store (to a 0600 file when stdout is not a terminal)' },
};

interface Description {
  type?: string;
  flags?: { default?: unknown; only?: boolean };
  allow?: unknown[];
  rules?: Array<{ name: string; args?: { limit?: unknown; options?: { scheme?: string[] } } }>;
}

/** A variable's accepted values, in words, from its joi description. */
function accepted(d: Description): string {
  if (d.flags?.only && d.allow) return d.allow.map((v) => `\`${String(v)}\``).join(', ');
  const rules = d.rules ?? [];
  const rule = (name: string) => rules.find((r) => r.name === name);
  if (rule('port')) return 'port';
  const scheme = rule('uri')?.args?.options?.scheme;
  if (scheme) return `${scheme.join('/')} URL`;
  if (d.type === 'number') {
    const min = rule('min')?.args?.limit;
    const max = rule('max')?.args?.limit;
    const kind = rule('integer') ? 'integer' : 'number';
    if (min !== undefined && max !== undefined) return `${kind} ${String(min)}–${String(max)}`;
    if (min !== undefined) return `${kind} ≥ ${String(min)}`;
    return kind;
  }
  if (d.type === 'alternatives') return 'boolean, integer or string';
  return d.type ?? 'string';
}

function defaultOf(d: Description, given: string | undefined): string {
  if (given) return given;
  const value = d.flags?.default;
  if (value === undefined) return 'unset';
  return `\`${String(value)}\``;
}

/** The configuration table, one row per variable of the schema, in the schema's order. */
export function renderConfigTable(): string {
  const keys = (CONFIG_SCHEMA_DESCRIPTION as { keys?: Record<string, Description> }).keys ?? {};
  const rows = Object.entries(keys).map(([name, d]) => {
    const entry = CONFIG_MEANINGS[name];
    if (!entry) throw new Error(`${name} has no meaning in packages/core/src/config-reference.ts`);
    return `| \`${name}\` | ${accepted(d)} | ${defaultOf(d, entry.default)} | ${entry.meaning} |`;
  });
  const stale = Object.keys(CONFIG_MEANINGS).filter((name) => !(name in keys));
  if (stale.length > 0) throw new Error(`Not in the config schema: ${stale.join(', ')}`);
  return ['| variable | accepts | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

export const CONFIG_TABLE_START = '<!-- config-table:start (generated by npm run docs:config; do not edit) -->';
export const CONFIG_TABLE_END = '<!-- config-table:end -->';

/** `doc` with the text between the markers replaced by the generated table. */
export function withConfigTable(doc: string): string {
  const start = doc.indexOf(CONFIG_TABLE_START);
  const end = doc.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) throw new Error('The configuration table markers are missing');
  return `${doc.slice(0, start + CONFIG_TABLE_START.length)}\n${renderConfigTable()}\n${doc.slice(end)}`;
}
