import { ConfigError, loadConfig } from '../../src/config';

describe('loadConfig', () => {
  it('defaults to embedded mode with documented values', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      mode: 'embedded',
      port: 8080,
      host: '127.0.0.1',
      dataDir: './data',
      databaseUrl: undefined,
      redisUrl: undefined,
      rateLimit: { perMinute: 100, registerPerMinute: 10 },
      embedding: { provider: 'transformers', model: 'Xenova/all-MiniLM-L6-v2', allowLexicalFallback: true, thread: 'worker' },
      webhooks: { retryDelaysMs: [5000, 25000, 125000], timeoutMs: 30000, allowLoopback: false },
    });
  });

  it('opens no keyless metrics listener unless METRICS_PORT is set, and never on the public port', () => {
    expect(loadConfig({}).metrics).toEqual({ port: undefined, host: '127.0.0.1' });
    expect(loadConfig({}).webhooks.metricsPort).toBe(9465);
    expect(loadConfig({ METRICS_PORT: '9100', METRICS_HOST: '10.0.0.5' }).metrics).toEqual({ port: 9100, host: '10.0.0.5' });
    expect(loadConfig({ METRICS_PORT: '0' }).metrics.port).toBeUndefined();
    expect(() => loadConfig({ PORT: '9100', METRICS_PORT: '9100' })).toThrow(/METRICS_PORT must differ from PORT/);
    expect(() => loadConfig({ METRICS_PORT: '8080' })).toThrow(/METRICS_PORT must differ from PORT/);
  });

  it('switches to split mode with DATABASE_URL and forbids the lexical fallback there', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u@db:5432/ams', REDIS_URL: 'redis://redis:6379' });
    expect(c.mode).toBe('split');
    expect(c.embedding.allowLexicalFallback).toBe(false);
  });

  it('reads DATABASE_REPLICA_URLS as a list of replicas of DATABASE_URL, and refuses it in embedded mode', () => {
    const split = { DATABASE_URL: 'postgres://u@db:5432/ams' };
    expect(loadConfig(split).replicas).toEqual({ urls: [], maxLagMs: 5000, checkIntervalMs: 500 });
    expect(loadConfig({ ...split, DATABASE_REPLICA_URLS: 'postgres://u@r1:5432/ams, postgresql://u:pw@r2/ams', DATABASE_REPLICA_MAX_LAG_MS: '2000', DATABASE_REPLICA_CHECK_INTERVAL_MS: '250' }).replicas).toEqual({
      urls: ['postgres://u@r1:5432/ams', 'postgresql://u:pw@r2/ams'],
      maxLagMs: 2000,
      checkIntervalMs: 250,
    });
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://u@r1:5432/ams' })).toThrow(
      /DATABASE_REPLICA_URLS: needs DATABASE_URL \(replicas serve reads of a PostgreSQL server; embedded mode, PGlite, has none\)/,
    );
    expect(() => loadConfig({ ...split, DATABASE_REPLICA_URLS: 'postgres://u:secret@r1/ams,mysql://r2/ams' })).toThrow(
      /DATABASE_REPLICA_URLS must be a comma-separated list of postgres:\/\/ URLs \(not one: mysql:\/\/r2\/ams\)/,
    );
    expect(() => loadConfig({ ...split, DATABASE_REPLICA_URLS: 'postgres://r1/ams,' })).toThrow(/not one: an empty entry/);
    // A bad entry is named without the password of the good ones, or its own.
    expect(() => loadConfig({ ...split, DATABASE_REPLICA_URLS: 'postgres://u:secret@r1/ams,pg//u:secret@r2/ams' })).toThrow(/\(not one: pg\/\/…@r2\/ams\)$/);
    expect(() => loadConfig({ ...split, DATABASE_REPLICA_MAX_LAG_MS: '500', DATABASE_REPLICA_CHECK_INTERVAL_MS: '500' })).toThrow(
      /DATABASE_REPLICA_CHECK_INTERVAL_MS: must be less than DATABASE_REPLICA_MAX_LAG_MS \(500\)/,
    );
  });

  it('gives a search a deadline of its own below the request deadline', () => {
    expect(loadConfig({}).backpressure).toMatchObject({ requestTimeoutMs: 30_000, searchTimeoutMs: 10_000 });
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '1500' }).backpressure.searchTimeoutMs).toBe(500);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '0' }).backpressure.searchTimeoutMs).toBe(10_000);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '0', SEARCH_TIMEOUT_MS: '0' }).backpressure.searchTimeoutMs).toBe(0);
    expect(loadConfig({ SEARCH_TIMEOUT_MS: '2500' }).backpressure.searchTimeoutMs).toBe(2_500);
    for (const searchTimeout of ['30000', '0'])
      expect(() => loadConfig({ SEARCH_TIMEOUT_MS: searchTimeout })).toThrow(/SEARCH_TIMEOUT_MS: must be between 1 and REQUEST_TIMEOUT_MS \(30000\) exclusive/);
  });

  it('downloads a missing model by default in embedded mode only; EMBEDDING_ALLOW_REMOTE_MODELS decides either way', () => {
    expect(loadConfig({}).embedding).toMatchObject({ allowRemoteModels: true, modelHost: 'https://huggingface.co', queryCacheSize: 1000 });
    expect(loadConfig({ EMBEDDING_ALLOW_REMOTE_MODELS: 'false' }).embedding.allowRemoteModels).toBe(false);
    const split = { DATABASE_URL: 'postgres://u@db:5432/ams' };
    expect(loadConfig(split).embedding.allowRemoteModels).toBe(false);
    expect(loadConfig({ ...split, EMBEDDING_ALLOW_REMOTE_MODELS: 'true' }).embedding.allowRemoteModels).toBe(true);
  });

  it('uses queues only with a database server: an embedded store keeps its workers in the API process', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/ams', REDIS_URL: 'redis://redis:6379' }).queueUrl).toBe('redis://redis:6379');
    expect(loadConfig({ REDIS_URL: 'redis://redis:6379' })).toMatchObject({ mode: 'embedded', redisUrl: 'redis://redis:6379', queueUrl: undefined });
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/ams' }).queueUrl).toBeUndefined();
  });

  it.each([
    [{ EMBEDDING_BATCH_SIZE: '0' }, 'EMBEDDING_BATCH_SIZE'],
    [{ EMBEDDING_BATCH_SIZE: '257' }, 'EMBEDDING_BATCH_SIZE'],
    [{ EMBEDDING_MAX_ATTEMPTS: '0' }, 'EMBEDDING_MAX_ATTEMPTS'],
    [{ EMBEDDING_STUCK_AFTER_MS: '999' }, 'EMBEDDING_STUCK_AFTER_MS'],
    [{ EMBEDDING_RETRY_BASE_MS: '-1' }, 'EMBEDDING_RETRY_BASE_MS'],
    [{ EMBEDDING_BATCH_TIMEOUT_MS: '999' }, 'EMBEDDING_BATCH_TIMEOUT_MS'],
    [{ EMBEDDING_WORKER_METRICS_PORT: '70000' }, 'EMBEDDING_WORKER_METRICS_PORT'],
    [{ EMBEDDING_MODEL_HOST: 'ftp://hub' }, 'EMBEDDING_MODEL_HOST'],
    [{ EMBEDDING_QUERY_CACHE_SIZE: '-1' }, 'EMBEDDING_QUERY_CACHE_SIZE'],
    [{ EMBEDDING_INTRA_OP_THREADS: '-1' }, 'EMBEDDING_INTRA_OP_THREADS'],
    [{ EMBEDDING_INTRA_OP_THREADS: 'all' }, 'EMBEDDING_INTRA_OP_THREADS'],
  ])('rejects the embedding worker setting %p', (env, name) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`${name}:`));
  });

  it("runs the model on one ONNX Runtime intra-op thread unless told otherwise (0: the runtime's own default)", () => {
    expect(loadConfig({}).embedding.intraOpThreads).toBe(1);
    expect(loadConfig({ EMBEDDING_INTRA_OP_THREADS: '0' }).embedding.intraOpThreads).toBe(0);
    expect(loadConfig({ EMBEDDING_INTRA_OP_THREADS: '2' }).embedding.intraOpThreads).toBe(2);
  });

  it('lets sixteen times the in-flight bound wait for a slot, within a 500 ms budget, unless told otherwise', () => {
    expect(loadConfig({ MAX_IN_FLIGHT_REQUESTS: '5' }).backpressure).toMatchObject({ maxInFlight: 5, maxQueued: 80, maxQueueDelayMs: 500 });
    expect(loadConfig({ MAX_QUEUE_DELAY_MS: '400' }).backpressure.maxQueueDelayMs).toBe(400);
    expect(loadConfig({ MAX_QUEUE_WAIT_MS: '300' }).backpressure.maxQueueDelayMs).toBe(300);
    expect(loadConfig({ MAX_QUEUE_WAIT_MS: '300', MAX_QUEUE_DELAY_MS: '400' }).backpressure.maxQueueDelayMs).toBe(400);
    expect(loadConfig({ MAX_IN_FLIGHT_REQUESTS: '5', MAX_QUEUED_REQUESTS: '0' }).backpressure.maxQueued).toBe(0);
  });

  it('names search statements unless DB_PREPARED_STATEMENTS=false (a transaction-mode pooler)', () => {
    expect(loadConfig({}).dbPreparedStatements).toBe(true);
    expect(loadConfig({ DB_PREPARED_STATEMENTS: 'false' }).dbPreparedStatements).toBe(false);
  });

  it('reports an import job stale after 30 s without a heartbeat unless told otherwise', () => {
    expect(loadConfig({}).importStaleAfterMs).toBe(30_000);
    expect(loadConfig({ IMPORT_STALE_AFTER_MS: '2000' }).importStaleAfterMs).toBe(2_000);
  });

  it('cancels abandoned reads unless DB_CANCEL_ABANDONED_READS=false', () => {
    expect(loadConfig({}).dbCancelAbandonedReads).toBe(true);
    expect(loadConfig({ DB_CANCEL_ABANDONED_READS: 'false' }).dbCancelAbandonedReads).toBe(false);
  });

  it('treats empty and blank variables as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' }).mode).toBe('embedded');
    // docker-compose.yml's `${AMS_DATABASE_REPLICA_URLS:- }`: no replicas.
    expect(loadConfig({ DATABASE_URL: 'postgres://ams@db/ams', DATABASE_REPLICA_URLS: ' ' }).replicas.urls).toEqual([]);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ API_KEY_CACHE_MS: '-1' }, 'API_KEY_CACHE_MS'],
    [{ IMPORT_STALE_AFTER_MS: '10' }, 'IMPORT_STALE_AFTER_MS'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ RATE_LIMIT_PER_MINUTE: '0' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ WEBHOOK_RETRY_DELAYS_MS: '5s,25s' }, 'WEBHOOK_RETRY_DELAYS_MS'],
    [{ EMBEDDING_PROVIDER: 'openai' }, 'EMBEDDING_PROVIDER'],
    [{ EMBEDDING_THREAD: 'gpu' }, 'EMBEDDING_THREAD'],
    [{ MAX_QUEUED_REQUESTS: '-1' }, 'MAX_QUEUED_REQUESTS'],
    [{ MAX_QUEUE_WAIT_MS: 'soon' }, 'MAX_QUEUE_WAIT_MS'],
    [{ MAX_QUEUE_DELAY_MS: 'soon' }, 'MAX_QUEUE_DELAY_MS'],
    [{ DB_PREPARED_STATEMENTS: 'sometimes' }, 'DB_PREPARED_STATEMENTS'],
    [{ DB_CANCEL_ABANDONED_READS: 'maybe' }, 'DB_CANCEL_ABANDONED_READS'],
  ])('fails fast on %p, naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`${name}:`));
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'loud' })).toThrow(/PORT:[\s\S]*LOG_LEVEL:|LOG_LEVEL:[\s\S]*PORT:/);
  });
});
