import os from 'node:os';
import Joi from 'joi';

type Mode = 'embedded' | 'split';
type LogFormat = 'json' | 'pretty';
type EmbeddingProvider = 'transformers' | 'lexical';

/** An account's limits (0: unlimited; the weight is its share of admission when the API is busy). */
export interface AccountLimitDefaults {
  max_memories: number;
  max_storage_bytes: number;
  requests_per_minute: number;
  searches_per_day: number;
  embeddings_per_day: number;
  fair_share_weight: number;
}

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  port: number;
  /** Unset means embedded mode: PGlite under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  dbPoolMax: number;
  /** Named prepared statements for the search path's queries (off behind a transaction-mode pooler). */
  dbPreparedStatements: boolean;
  /** Cancel the running statement of a read nobody waits for (off: it runs to its end). */
  dbCancelAbandonedReads: boolean;
  /**
   * Streaming replicas of DATABASE_URL that serve reads (docs/operations.md, "Read replicas"):
   * none by default. A replica more than maxLagMs behind is skipped; each is checked every checkIntervalMs.
   */
  replicas: { urls: string[]; maxLagMs: number; checkIntervalMs: number };
  /** Unset means no queue: workers run in-process, fed from the database. */
  redisUrl: string | undefined;
  /**
   * Where the job queues live: REDIS_URL, but only with DATABASE_URL. Worker processes cannot
   * reach an embedded (PGlite) store, so without a database server the workers run in the API
   * process, whatever Redis is there for (shared rate limits).
   */
  queueUrl: string | undefined;
  redisKeyPrefix: string;
  logLevel: string;
  logFormat: LogFormat;
  trustProxy: string | boolean | number;
  rateLimit: { perMinute: number; unauthenticatedPerMinute: number; registerPerMinute: number };
  /** Every account's limits unless the operator set its own (0: unlimited); docs/operations.md, "Account limits and usage". */
  accountLimits: AccountLimitDefaults;
  /** Per-account activity counters: how often each API process writes its counts, and how many accounts metrics name. */
  usage: { flushIntervalMs: number; metricsTopAccounts: number };
  /** How long a process may reuse an API key's row without reading it again; 0 reads it on every request. */
  apiKeyCacheMs: number;
  /** AGENT_CACHE_MS: how long a process reuses an agent reference's id (0: looked up every time). */
  agentCacheMs: number;
  /** An import job whose process has sent no heartbeat for this long is reported failed (its counts are exact). */
  importStaleAfterMs: number;
  /** The largest import upload accepted, in bytes (it is spooled to a temporary file before the job starts). */
  importMaxBytes: number;
  /** Load shedding (services/api/src/middleware/backpressure.ts); 0 turns a bound off. */
  backpressure: { maxInFlight: number; maxInFlightPerAccount: number; maxQueued: number; maxQueueDelayMs: number; maxEventLoopDelayMs: number; maxPoolWaitMs: number; requestTimeoutMs: number; searchTimeoutMs: number };
  embedding: {
    provider: EmbeddingProvider;
    model: string;
    modelDir: string;
    /**
     * May fetch a missing model from modelHost into modelDir: EMBEDDING_ALLOW_REMOTE_MODELS, by
     * default true in embedded mode (first start downloads it) and false in split mode (fail fast).
     */
    allowRemoteModels: boolean;
    /** The model hub (Hugging Face's layout: <host>/<model>/resolve/main/<file>). */
    modelHost: string;
    quantized: boolean;
    /** Where the model runs: 'worker', a thread of its own (the event loop goes on meanwhile), or 'main'. */
    thread: 'worker' | 'main';
    /** ONNX Runtime's intra-op threads per model call (default 1: no spinning pool beside the event loop and PostgreSQL); 0: its own default, one per physical core. */
    intraOpThreads: number;
    /** Query embeddings kept per process (LRU over model + text); 0 turns the cache off. */
    queryCacheSize: number;
    /** Embedded mode may fall back to the lexical embedder when the model files are absent. */
    allowLexicalFallback: boolean;
  };
  embeddingWorker: {
    concurrency: number;
    batchSize: number;
    batchWaitMs: number;
    maxAttempts: number;
    retryBaseMs: number;
    batchTimeoutMs: number;
    stuckAfterMs: number;
    reconcileIntervalMs: number;
    metricsPort: number;
    /** How often each process reads the active model and a re-embed run's state (docs/operations.md, "Re-embedding on a model change"). */
    modelPollMs: number;
  };
  /** Expiry and history housekeeping: run beside the embedding worker's sweep. */
  memoryLifecycle: {
    /** How often expired memories are soft-deleted (memory.expired) and old versions pruned. */
    sweepIntervalMs: number;
    /** Versions older than this many days are pruned (never a memory's current one); 0: kept for ever. */
    historyRetentionDays: number;
    /** Versions kept per memory, newest first; 0: no bound. */
    historyMaxVersions: number;
  };
  webhooks: {
    timeoutMs: number;
    retryDelaysMs: number[];
    allowLoopback: boolean;
    caFile: string | undefined;
    concurrency: number;
    reconcileIntervalMs: number;
    /** The dispatcher process's Prometheus listener; 0: none. */
    metricsPort: number;
  };
  /** Re-tiering by use and age (docs/api.md, "Re-tiering"): how often each enabled account is re-tiered; 0: never here. */
  retiering: { intervalMs: number; batchSize: number };
  /**
   * The API's keyless metrics listener (METRICS_PORT; unset: none). The public port serves
   * /metrics only to an admin key.
   */
  metrics: { port: number | undefined; host: string };
  secrets: {
    /** Seals webhook secrets at rest; unset: a key file made under dataDir. */
    webhookSecretKey: Buffer | undefined;
    /** Keys that still open rows sealed before a rotation; start-up re-seals those rows with the current key. */
    previousWebhookSecretKeys: Buffer[];
  };
  /**
   * The built-in OAuth authorization server for remote MCP hosts (docs/operations.md, "OAuth").
   * publicUrl unset: off, and /mcp takes API keys only.
   */
  oauth: {
    /** The service's origin as browsers and MCP hosts reach it; the issuer, and `${publicUrl}/mcp` the resource. */
    publicUrl: string | undefined;
    accessTokenTtlSeconds: number;
    refreshTokenTtlSeconds: number;
    /** Sign-in attempts per account within lockoutSeconds, and per address within addressWindowSeconds. */
    signIn: { perAccount: number; lockoutSeconds: number; perAddress: number; addressWindowSeconds: number };
    /**
     * An external OpenID Connect provider instead of the built-in server: /mcp takes its JWTs
     * (signature by its JWKS, issuer, audience), the account is the one whose email is accountClaim's value.
     */
    external: { issuer: string; audience: string; accountClaim: string; scopesClaim: string } | undefined;
  };
  bootstrapAdminKey: boolean;
  mode: Mode;
}

/** base64 of exactly 32 random bytes (`openssl rand -base64 32`). */
const KEY_32 = /^[A-Za-z0-9+/]{43}=$/;
const aesKey = Joi.string().pattern(KEY_32).messages({ 'string.pattern.base': '{{#label}} must be 32 bytes in base64 (openssl rand -base64 32)' });

const csvOfInts = Joi.string().pattern(/^\d+(,\d+)*$/).messages({
  'string.pattern.base': '{{#label}} must be a comma-separated list of milliseconds, e.g. 5000,25000,125000',
});

const postgresUrl = Joi.string().uri({ scheme: ['postgres', 'postgresql'] });
const csvOfPostgresUrls = Joi.string().custom((value: string, helpers) => {
  const bad = value.split(',').map((u) => u.trim()).find((u) => postgresUrl.validate(u).error);
  if (bad === undefined) return value;
  const entry = bad === '' ? 'an empty entry' : bad.replace(/\/\/[^@/]*@/, '//…@');
  return helpers.message({ custom: `{{#label}} must be a comma-separated list of postgres:// URLs (not one: ${entry})` });
});

const schema = Joi.object({
  NODE_ENV: Joi.string().valid('development', 'production', 'test').default('development'),
  HOST: Joi.string().default('127.0.0.1'),
  PORT: Joi.number().port().default(8080),
  DATABASE_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
  DATA_DIR: Joi.string().default('./data'),
  DB_POOL_MAX: Joi.number().integer().min(1).max(200).default(10),
  DB_PREPARED_STATEMENTS: Joi.boolean().default(true),
  DB_CANCEL_ABANDONED_READS: Joi.boolean().default(true),
  DATABASE_REPLICA_URLS: csvOfPostgresUrls,
  DATABASE_REPLICA_MAX_LAG_MS: Joi.number().integer().min(100).max(3_600_000).default(5_000),
  DATABASE_REPLICA_CHECK_INTERVAL_MS: Joi.number().integer().min(50).max(60_000).default(500),
  REDIS_URL: Joi.string().uri({ scheme: ['redis', 'rediss'] }),
  REDIS_KEY_PREFIX: Joi.string().default('ams'),
  LOG_LEVEL: Joi.string().valid('error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly').default('info'),
  LOG_FORMAT: Joi.string().valid('json', 'pretty'),
  TRUST_PROXY: Joi.alternatives(Joi.boolean(), Joi.number().integer().min(0), Joi.string()).default(false),
  RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(100),
  ACCOUNT_MAX_MEMORIES: Joi.number().integer().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  ACCOUNT_MAX_STORAGE_BYTES: Joi.number().integer().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  ACCOUNT_REQUESTS_PER_MINUTE: Joi.number().integer().min(0).max(2_147_483_647).default(0),
  ACCOUNT_SEARCHES_PER_DAY: Joi.number().integer().min(0).max(2_147_483_647).default(0),
  ACCOUNT_EMBEDDINGS_PER_DAY: Joi.number().integer().min(0).max(2_147_483_647).default(0),
  ACCOUNT_FAIR_SHARE_WEIGHT: Joi.number().greater(0).max(1_000_000).default(1),
  USAGE_FLUSH_INTERVAL_MS: Joi.number().integer().min(50).max(60_000).default(1_000),
  METRICS_TOP_ACCOUNTS: Joi.number().integer().min(0).max(1_000).default(20),
  UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(60),
  REGISTER_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(10),
  API_KEY_CACHE_MS: Joi.number().integer().min(0).max(300_000).default(10_000),
  AGENT_CACHE_MS: Joi.number().integer().min(0).max(300_000).default(10_000),
  IMPORT_STALE_AFTER_MS: Joi.number().integer().min(1_000).max(3_600_000).default(30_000),
  IMPORT_MAX_BYTES: Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).default(1024 ** 3),
  // One per core, at least 2: npm run bench:load held the accepted p99 at twice the sustainable rate
  // within 3× the unloaded one with 2 on 2 cores; 3 spread past it (docs/decisions/0008-admission-queue.md).
  MAX_IN_FLIGHT_REQUESTS: Joi.number().integer().min(0).default(() => Math.max(2, os.availableParallelism())),
  // The slots one account may hold at once; default all of them (a lone tenant uses the whole box).
  MAX_IN_FLIGHT_PER_ACCOUNT: Joi.number().integer().min(0),
  // Beyond the bound, requests wait for a slot (accounts in turn); default 16 times the bound,
  // so a burst of many agents on a quiet process waits rather than being refused.
  MAX_QUEUED_REQUESTS: Joi.number().integer().min(0).max(100_000),
  // The latency budget: a request expected to wait longer than this for a slot is refused at once.
  MAX_QUEUE_DELAY_MS: Joi.number().integer().min(0).max(600_000),
  // The name this budget had before (then a plain timeout); MAX_QUEUE_DELAY_MS wins when both are set.
  MAX_QUEUE_WAIT_MS: Joi.number().integer().min(0).max(600_000),
  MAX_EVENT_LOOP_DELAY_MS: Joi.number().integer().min(0).default(1000),
  MAX_DB_POOL_WAIT_MS: Joi.number().integer().min(0).default(100),
  REQUEST_TIMEOUT_MS: Joi.number().integer().min(0).default(30_000),
  // A search's own deadline, below the request's; default a third of it (10 s of 30 s), 10 s when that is off.
  SEARCH_TIMEOUT_MS: Joi.number().integer().min(0),
  EMBEDDING_PROVIDER: Joi.string().valid('transformers', 'lexical').default('transformers'),
  EMBEDDING_MODEL: Joi.string().default('Xenova/all-MiniLM-L6-v2'),
  MODEL_DIR: Joi.string().default('./models'),
  EMBEDDING_ALLOW_REMOTE_MODELS: Joi.boolean(),
  EMBEDDING_MODEL_HOST: Joi.string().uri({ scheme: ['http', 'https'] }).default('https://huggingface.co'),
  EMBEDDING_QUERY_CACHE_SIZE: Joi.number().integer().min(0).max(1_000_000).default(1_000),
  EMBEDDING_QUANTIZED: Joi.boolean().default(true),
  EMBEDDING_THREAD: Joi.string().valid('worker', 'main').default('worker'),
  EMBEDDING_INTRA_OP_THREADS: Joi.number().integer().min(0).max(64).default(1),
  EMBEDDING_WORKER_CONCURRENCY: Joi.number().integer().min(1).max(64).default(2),
  EMBEDDING_BATCH_SIZE: Joi.number().integer().min(1).max(256).default(32),
  EMBEDDING_BATCH_WAIT_MS: Joi.number().integer().min(0).max(10_000).default(20),
  EMBEDDING_MAX_ATTEMPTS: Joi.number().integer().min(1).max(20).default(3),
  EMBEDDING_RETRY_BASE_MS: Joi.number().integer().min(0).max(300_000).default(2_000),
  EMBEDDING_BATCH_TIMEOUT_MS: Joi.number().integer().min(1000).default(120_000),
  EMBEDDING_STUCK_AFTER_MS: Joi.number().integer().min(1000).default(60_000),
  EMBEDDING_RECONCILE_INTERVAL_MS: Joi.number().integer().min(100).default(10_000),
  EMBEDDING_WORKER_METRICS_PORT: Joi.number().port().default(9464),
  EMBEDDING_MODEL_POLL_MS: Joi.number().integer().min(50).max(60_000).default(2_000),
  MEMORY_SWEEP_INTERVAL_MS: Joi.number().integer().min(100).max(3_600_000).default(30_000),
  MEMORY_HISTORY_RETENTION_DAYS: Joi.number().integer().min(0).max(36_500).default(0),
  MEMORY_HISTORY_MAX_VERSIONS: Joi.number().integer().min(0).max(1_000_000).default(0),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).max(120_000).default(30_000),
  WEBHOOK_RETRY_DELAYS_MS: csvOfInts.default('5000,25000,125000'),
  WEBHOOK_ALLOW_LOOPBACK: Joi.boolean().default(false),
  WEBHOOK_CA_FILE: Joi.string(),
  WEBHOOK_CONCURRENCY: Joi.number().integer().min(1).max(256).default(10),
  WEBHOOK_RECONCILE_INTERVAL_MS: Joi.number().integer().min(100).default(10_000),
  WEBHOOK_DISPATCHER_METRICS_PORT: Joi.number().port().default(9465),
  RETIERING_INTERVAL_MS: Joi.number().integer().min(0).default(3_600_000),
  RETIERING_BATCH_SIZE: Joi.number().integer().min(10).max(100_000).default(1_000),
  METRICS_PORT: Joi.number().port().invalid(Joi.ref('PORT')).messages({ 'any.invalid': '{{#label}} must differ from PORT: the keyless metrics listener never shares the public port' }),
  METRICS_HOST: Joi.string().default('127.0.0.1'),
  WEBHOOK_SECRET_KEY: aesKey,
  WEBHOOK_SECRET_KEYS_PREVIOUS: Joi.string()
    .pattern(/^[A-Za-z0-9+/]{43}=(,[A-Za-z0-9+/]{43}=)*$/)
    .messages({ 'string.pattern.base': '{{#label}} must be a comma-separated list of 32-byte base64 keys' }),
  OAUTH_PUBLIC_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .custom((value: string, helpers) => {
      const url = new URL(value);
      if (url.pathname !== '/' || url.search || url.hash) return helpers.message({ custom: '{{#label}} must be an origin only (scheme, host, port), e.g. https://memory.example.com' });
      // Tokens and passwords cross it: plain HTTP only to this machine.
      if (url.protocol !== 'https:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) return helpers.message({ custom: '{{#label}} must be https (plain http only for localhost)' });
      return url.origin;
    }),
  OAUTH_ISSUER: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .custom((value: string, helpers) => {
      const url = new URL(value);
      if (url.protocol !== 'https:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) return helpers.message({ custom: '{{#label}} must be https (plain http only for localhost)' });
      return value.replace(/\/$/, '');
    }),
  OAUTH_AUDIENCE: Joi.string().max(2000),
  OAUTH_ACCOUNT_CLAIM: Joi.string().pattern(/^[A-Za-z0-9_:./-]{1,100}$/).default('email'),
  OAUTH_SCOPES_CLAIM: Joi.string().pattern(/^[A-Za-z0-9_:./-]{1,100}$/).default('scope'),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: Joi.number().integer().min(60).max(86_400).default(900),
  OAUTH_REFRESH_TOKEN_TTL_DAYS: Joi.number().integer().min(1).max(365).default(30),
  OAUTH_SIGNIN_ATTEMPTS_PER_ACCOUNT: Joi.number().integer().min(1).max(1_000).default(5),
  OAUTH_SIGNIN_LOCKOUT_SECONDS: Joi.number().integer().min(1).max(900).default(60),
  OAUTH_SIGNIN_ATTEMPTS_PER_ADDRESS: Joi.number().integer().min(1).max(100_000).default(30),
  OAUTH_SIGNIN_ADDRESS_WINDOW_SECONDS: Joi.number().integer().min(1).max(86_400).default(900),
  BOOTSTRAP_ADMIN_KEY: Joi.boolean().default(true),
})
  .unknown(true)
  .prefs({ convert: true, abortEarly: false });

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment once; fails with a message naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty and blank strings mean "unset" (a blank line in .env, or compose's `${VAR:- }` default
  // for an optional setting, must not become an invalid URL).
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => (v ?? '').trim() !== ''));
  const { value: v, error } = schema.validate(cleaned);
  if (error) {
    const problems = error.details.map((d) => `${d.path.join('.')}: ${d.message.replace(/"/g, '')}`);
    throw new ConfigError(`Invalid environment configuration:\n  - ${problems.join('\n  - ')}`);
  }
  const replicaProblems = [
    v.DATABASE_REPLICA_URLS && !v.DATABASE_URL && 'DATABASE_REPLICA_URLS: needs DATABASE_URL (replicas serve reads of a PostgreSQL server; embedded mode, PGlite, has none)',
    v.SEARCH_TIMEOUT_MS !== undefined && v.REQUEST_TIMEOUT_MS > 0 && (v.SEARCH_TIMEOUT_MS === 0 || v.SEARCH_TIMEOUT_MS >= v.REQUEST_TIMEOUT_MS) &&
      `SEARCH_TIMEOUT_MS: must be between 1 and REQUEST_TIMEOUT_MS (${v.REQUEST_TIMEOUT_MS}) exclusive: a search ends with its own answer before the request's deadline`,
    v.DATABASE_REPLICA_CHECK_INTERVAL_MS >= v.DATABASE_REPLICA_MAX_LAG_MS &&
      `DATABASE_REPLICA_CHECK_INTERVAL_MS: must be less than DATABASE_REPLICA_MAX_LAG_MS (${v.DATABASE_REPLICA_MAX_LAG_MS}): a replica is known to be within the bound only as of its last check`,
    v.OAUTH_ISSUER && !v.OAUTH_PUBLIC_URL && 'OAUTH_ISSUER: needs OAUTH_PUBLIC_URL (the address hosts reach /mcp at, which tokens must be for)',
  ].filter(Boolean);
  if (replicaProblems.length) throw new ConfigError(`Invalid environment configuration:\n  - ${replicaProblems.join('\n  - ')}`);
  const nodeEnv = v.NODE_ENV as Config['nodeEnv'];
  const mode: Mode = v.DATABASE_URL ? 'split' : 'embedded';
  return {
    nodeEnv,
    host: v.HOST,
    port: v.PORT,
    databaseUrl: v.DATABASE_URL,
    dataDir: v.DATA_DIR,
    dbPoolMax: v.DB_POOL_MAX,
    dbPreparedStatements: v.DB_PREPARED_STATEMENTS,
    dbCancelAbandonedReads: v.DB_CANCEL_ABANDONED_READS,
    replicas: {
      urls: v.DATABASE_REPLICA_URLS ? String(v.DATABASE_REPLICA_URLS).split(',').map((u) => u.trim()) : [],
      maxLagMs: v.DATABASE_REPLICA_MAX_LAG_MS,
      checkIntervalMs: v.DATABASE_REPLICA_CHECK_INTERVAL_MS,
    },
    redisUrl: v.REDIS_URL,
    queueUrl: v.DATABASE_URL ? v.REDIS_URL : undefined,
    redisKeyPrefix: v.REDIS_KEY_PREFIX,
    logLevel: v.LOG_LEVEL,
    logFormat: v.LOG_FORMAT ?? (nodeEnv === 'production' ? 'json' : 'pretty'),
    trustProxy: v.TRUST_PROXY,
    rateLimit: {
      perMinute: v.RATE_LIMIT_PER_MINUTE,
      unauthenticatedPerMinute: v.UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE,
      registerPerMinute: v.REGISTER_RATE_LIMIT_PER_MINUTE,
    },
    accountLimits: {
      max_memories: v.ACCOUNT_MAX_MEMORIES,
      max_storage_bytes: v.ACCOUNT_MAX_STORAGE_BYTES,
      requests_per_minute: v.ACCOUNT_REQUESTS_PER_MINUTE,
      searches_per_day: v.ACCOUNT_SEARCHES_PER_DAY,
      embeddings_per_day: v.ACCOUNT_EMBEDDINGS_PER_DAY,
      fair_share_weight: v.ACCOUNT_FAIR_SHARE_WEIGHT,
    },
    usage: { flushIntervalMs: v.USAGE_FLUSH_INTERVAL_MS, metricsTopAccounts: v.METRICS_TOP_ACCOUNTS },
    apiKeyCacheMs: v.API_KEY_CACHE_MS,
    agentCacheMs: v.AGENT_CACHE_MS,
    importStaleAfterMs: v.IMPORT_STALE_AFTER_MS,
    importMaxBytes: v.IMPORT_MAX_BYTES,
    backpressure: {
      maxInFlight: v.MAX_IN_FLIGHT_REQUESTS,
      maxInFlightPerAccount: v.MAX_IN_FLIGHT_PER_ACCOUNT ?? 0,
      maxQueued: v.MAX_QUEUED_REQUESTS ?? 16 * v.MAX_IN_FLIGHT_REQUESTS,
      maxQueueDelayMs: v.MAX_QUEUE_DELAY_MS ?? v.MAX_QUEUE_WAIT_MS ?? 500,
      maxEventLoopDelayMs: v.MAX_EVENT_LOOP_DELAY_MS,
      maxPoolWaitMs: v.MAX_DB_POOL_WAIT_MS,
      requestTimeoutMs: v.REQUEST_TIMEOUT_MS,
      searchTimeoutMs: v.SEARCH_TIMEOUT_MS ?? (v.REQUEST_TIMEOUT_MS > 0 ? Math.ceil(v.REQUEST_TIMEOUT_MS / 3) : 10_000),
    },
    embedding: {
      provider: v.EMBEDDING_PROVIDER,
      model: v.EMBEDDING_MODEL,
      modelDir: v.MODEL_DIR,
      allowRemoteModels: v.EMBEDDING_ALLOW_REMOTE_MODELS ?? mode === 'embedded',
      modelHost: v.EMBEDDING_MODEL_HOST,
      quantized: v.EMBEDDING_QUANTIZED,
      thread: v.EMBEDDING_THREAD,
      intraOpThreads: v.EMBEDDING_INTRA_OP_THREADS,
      queryCacheSize: v.EMBEDDING_QUERY_CACHE_SIZE,
      allowLexicalFallback: mode === 'embedded',
    },
    embeddingWorker: {
      concurrency: v.EMBEDDING_WORKER_CONCURRENCY,
      batchSize: v.EMBEDDING_BATCH_SIZE,
      batchWaitMs: v.EMBEDDING_BATCH_WAIT_MS,
      maxAttempts: v.EMBEDDING_MAX_ATTEMPTS,
      retryBaseMs: v.EMBEDDING_RETRY_BASE_MS,
      batchTimeoutMs: v.EMBEDDING_BATCH_TIMEOUT_MS,
      stuckAfterMs: v.EMBEDDING_STUCK_AFTER_MS,
      reconcileIntervalMs: v.EMBEDDING_RECONCILE_INTERVAL_MS,
      metricsPort: v.EMBEDDING_WORKER_METRICS_PORT,
      modelPollMs: v.EMBEDDING_MODEL_POLL_MS,
    },
    memoryLifecycle: {
      sweepIntervalMs: v.MEMORY_SWEEP_INTERVAL_MS,
      historyRetentionDays: v.MEMORY_HISTORY_RETENTION_DAYS,
      historyMaxVersions: v.MEMORY_HISTORY_MAX_VERSIONS,
    },
    webhooks: {
      timeoutMs: v.WEBHOOK_TIMEOUT_MS,
      retryDelaysMs: String(v.WEBHOOK_RETRY_DELAYS_MS).split(',').map(Number),
      allowLoopback: v.WEBHOOK_ALLOW_LOOPBACK,
      caFile: v.WEBHOOK_CA_FILE,
      concurrency: v.WEBHOOK_CONCURRENCY,
      reconcileIntervalMs: v.WEBHOOK_RECONCILE_INTERVAL_MS,
      metricsPort: v.WEBHOOK_DISPATCHER_METRICS_PORT,
    },
    retiering: { intervalMs: v.RETIERING_INTERVAL_MS, batchSize: v.RETIERING_BATCH_SIZE },
    metrics: { port: v.METRICS_PORT || undefined, host: v.METRICS_HOST },
    secrets: {
      webhookSecretKey: v.WEBHOOK_SECRET_KEY ? Buffer.from(v.WEBHOOK_SECRET_KEY, 'base64') : undefined,
      previousWebhookSecretKeys: v.WEBHOOK_SECRET_KEYS_PREVIOUS ? String(v.WEBHOOK_SECRET_KEYS_PREVIOUS).split(',').map((k) => Buffer.from(k, 'base64')) : [],
    },
    oauth: {
      publicUrl: v.OAUTH_PUBLIC_URL,
      accessTokenTtlSeconds: v.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlSeconds: v.OAUTH_REFRESH_TOKEN_TTL_DAYS * 86_400,
      signIn: {
        perAccount: v.OAUTH_SIGNIN_ATTEMPTS_PER_ACCOUNT,
        lockoutSeconds: v.OAUTH_SIGNIN_LOCKOUT_SECONDS,
        perAddress: v.OAUTH_SIGNIN_ATTEMPTS_PER_ADDRESS,
        addressWindowSeconds: v.OAUTH_SIGNIN_ADDRESS_WINDOW_SECONDS,
      },
      external: v.OAUTH_ISSUER
        ? { issuer: v.OAUTH_ISSUER, audience: v.OAUTH_AUDIENCE ?? `${v.OAUTH_PUBLIC_URL}/mcp`, accountClaim: v.OAUTH_ACCOUNT_CLAIM, scopesClaim: v.OAUTH_SCOPES_CLAIM }
        : undefined,
    },
    bootstrapAdminKey: v.BOOTSTRAP_ADMIN_KEY,
    mode,
  };
}

/** Every variable the config module reads; docker-compose and .env.example are checked against it. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.describe().keys ?? {});

/** The schema as joi describes it (types, defaults, limits): the configuration table in docs/operations.md is made from it. */
export const CONFIG_SCHEMA_DESCRIPTION = schema.describe();
