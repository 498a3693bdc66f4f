import { UsageMeter } from '@ams/accounts';
import { ConfigError, createLogger, requireSplitMode, secretBoxFor, type Config, type Logger } from '@ams/core';
import { createDatabase, migrateLatest, sealWebhookSecrets, waitForDatabase, type Database } from '@ams/db';
import { accountActivityGauges, apiMetrics, dispatcherMetrics, embeddingBatchMetrics, periodicMetrics, workerMetrics } from '@ams/metrics';
import { ImportJobs, type RecordRules } from '@ams/portability';
import { createWebhookQueue, dispatcherSettings, OutboxReconciler, queuedRetries, WebhookDispatcher } from '@ams/webhooks';
import type { Embedder } from '@ams/embeddings';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { apiIngestion, queuedEmbedding } from './background-work';
import { DRAIN_MS } from './drain';
import type { ApiContext, ProcessContext } from './contexts';
import { embedderStack } from './embedder-stack';
import { listenMetrics } from './metrics-listener';
import { startReadRouting } from './read-routing';
import { connectRedis, type RedisConnection } from './redis';
import { searchHelpers } from './search-helpers';
import { enqueueDeliveries, webhookDispatch } from './webhook-dispatch';

/**
 * A process's roles: `api` serves HTTP beside worker processes (split mode: DATABASE_URL and
 * REDIS_URL); `embedded` serves HTTP and runs the embedding worker and the webhook dispatcher in the
 * same process (no Redis: `npm start`); the two workers run beside `api` processes.
 */
export type Role = 'api' | 'embedded' | 'embedding-worker' | 'webhook-dispatcher';

/** The API process's role for a configuration: split when there are queues to hand work to. */
export const apiRole = (config: Config): 'api' | 'embedded' => (config.queueUrl ? 'api' : 'embedded');

export interface Started<C extends ProcessContext = ProcessContext> {
  ctx: C;
  logger: Logger;
  /** Stops taking work, drains what is in flight (DRAIN_MS), then closes connections, in that order. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** The API's HTTP layer (api, embedded): started once everything it uses is up, stopped first. */
  http?: (ctx: ApiContext) => Promise<{ close(): Promise<void> }>;
  /** How an import's lines are judged (api, embedded): the API's record schemas. */
  importRules?: RecordRules;
  /**
   * False for an API inside another process (tests, benches): no metrics listener, no default
   * process metrics, no import-job sweep. Default true.
   */
  standalone?: boolean;
  /** Given instead of built (tests, benches); a given database or Redis connection is not closed by stop. Redis null: none. */
  db?: Database;
  redis?: RedisConnection | null;
  embedder?: Embedder;
  registry?: Registry;
  /** The API's background work (api, embedded): embedding (the worker, or the queue) and webhook dispatch. Default both. */
  work?: { embedding?: boolean; webhooks?: boolean };
}

function missing(what: string): never {
  throw new Error(`start: ${what}`);
}

type ContextOf<R extends Role> = R extends 'api' | 'embedded' ? ApiContext : ProcessContext;

/** The composition root: builds, starts and (through `stop`) stops everything a process of `role` runs. */
export async function start<R extends Role>(role: R, config: Config, opts: StartOptions = {}): Promise<Started<ContextOf<R>>> {
  if (role === 'embedding-worker') return (await startEmbeddingWorker(config)) as Started<ContextOf<R>>;
  if (role === 'webhook-dispatcher') return (await startWebhookDispatcher(config)) as Started<ContextOf<R>>;
  // The API's role follows from its configuration (apiRole): a caller that names the other one is mistaken.
  if (role !== apiRole(config)) throw new ConfigError(`start('${role}'): this configuration makes the API ${apiRole(config)} (REDIS_URL ${config.queueUrl ? 'set' : 'unset'})`);
  return (await startApi(config, opts)) as Started<ContextOf<R>>;
}

/** A process's database, migrated (every role migrates: whichever starts first brings the schema up). */
async function openDatabase(config: Config, logger: Logger): Promise<Database> {
  const db = await createDatabase(config, logger);
  const privacy = db.dataDirPrivacy;
  if (privacy?.exposed) logger.warn('DATA_DIR had files other users could read or write; made them owner-only', { data_dir: config.dataDir, entries: privacy.exposed });
  for (const entry of privacy?.unfixable ?? []) logger.warn('DATA_DIR entry left readable by other users: change its owner or mode', { path: entry.path, error: entry.error });
  await waitForDatabase(db.knex, (err) => logger.warn('database not reachable yet; retrying in 1 s', { error: err.message }));
  const applied = await migrateLatest(db.knex);
  if (applied.length) logger.info('migrations applied', { migrations: applied });
  return db;
}

async function sealSecrets(config: Config, db: Database, logger: Logger): Promise<void> {
  const sealed = await sealWebhookSecrets(db.knex, secretBoxFor(config));
  if (sealed) logger.info('webhook secrets sealed with the current key', { webhooks: sealed });
}

async function startApi(config: Config, opts: StartOptions): Promise<Started<ApiContext>> {
  const standalone = opts.standalone ?? true;
  const logger = createLogger('api', config);
  const ownsDb = !opts.db;
  const db = opts.db ?? (await openDatabase(config, logger));
  if (ownsDb) await sealSecrets(config, db, logger);
  const ownsRedis = opts.redis === undefined;
  const redis = opts.redis === null ? undefined : (opts.redis ?? (config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined));

  // One registry for the whole process: the API's metrics, the query cache's, the in-process workers' and Node's own.
  const registry = opts.registry ?? new Registry();
  if (standalone && !opts.registry) {
    collectDefaultMetrics({ register: registry, prefix: 'ams_api_' });
    periodicMetrics(registry);
  }
  const { embedder, models } = await embedderStack(config, { db, logger }, { queryCache: { registry }, given: opts.embedder });
  const webhooks = opts.work?.webhooks === false ? undefined : webhookDispatch(config, db, logger, registry);
  const dispatch = webhooks?.dispatch;
  const ingestion =
    opts.work?.embedding === false
      ? undefined
      : apiIngestion(config, { db, logger, embedder, models, dispatch, redis, onBatch: config.queueUrl ? undefined : embeddingBatchMetrics(registry) });
  const readRouting = await startReadRouting(config, db, redis, logger);
  const helpers = searchHelpers(db.knex, logger);
  const imports = new ImportJobs({
    db: db.knex,
    embedder,
    logger,
    rules: opts.importRules ?? missing('importRules: the API judges an import by its record schemas'),
    maxBytes: config.importMaxBytes,
    staleAfterMs: config.importStaleAfterMs,
  });
  if (standalone) imports.startSweeping();
  const usage = new UsageMeter({ db: db.knex, logger, defaults: config.accountLimits, flushIntervalMs: config.usage.flushIntervalMs });
  await usage.start();
  accountActivityGauges(registry, () => usage.knownToday(), config.usage.metricsTopAccounts);
  const ctx: ApiContext = {
    config,
    logger,
    db,
    redis,
    embedder,
    models,
    ...helpers,
    webhookDispatch: dispatch,
    ingestion,
    reembedRunner: ingestion?.reembedRunner,
    metrics: apiMetrics(db.knex, registry),
    readRouting,
    imports,
    usage,
  };
  const http = opts.http ? await opts.http(ctx) : undefined;
  const metricsServer = standalone ? listenMetrics(registry, config.metrics.port ?? 0, config.metrics.host, logger) : undefined;
  return {
    ctx,
    logger,
    // Stop accepting, let in-flight requests finish, then the background work, Redis and the database.
    async stop() {
      await http?.close();
      metricsServer?.close();
      await imports.close();
      await usage.close();
      await ingestion?.close();
      await webhooks?.close();
      if (ownsRedis) await redis?.close();
      await readRouting?.close();
      await ctx.commonWords.close();
      // Searches answered before the stop are still being recorded.
      await ctx.searches.written();
      if (ownsDb) await db.close();
    },
  };
}

/**
 * The embedding worker process: `embedding` queue jobs wake it; it claims pending memories from
 * PostgreSQL in batches, embeds each batch in one model call and records embedding.completed.
 * A sweep of the database recovers whatever a lost job or a dead worker left.
 */
async function startEmbeddingWorker(config: Config): Promise<Started> {
  const logger = createLogger('embedding-worker', config);
  requireSplitMode(config, 'embedding worker');
  const db = await openDatabase(config, logger);
  const { embedder, models } = await embedderStack(config, { db, logger }, {});
  const webhooks = createWebhookQueue({ redisUrl: config.queueUrl, prefix: config.redisKeyPrefix, logger, isWorker: false });
  // Scrapes read the worker, which is made next (metrics first: the worker reports to them).
  const metrics = workerMetrics(db.knex, () => work.worker);
  const work = queuedEmbedding(config, { db, logger, embedder, models, dispatch: enqueueDeliveries(webhooks), onBatch: (batch) => metrics.observeBatch(batch) });
  const { concurrency, batchSize, batchWaitMs, metricsPort } = config.embeddingWorker;
  periodicMetrics(metrics.registry);
  const server = listenMetrics(metrics.registry, metricsPort, config.host, logger);
  logger.info('embedding worker started', { model: embedder.model, concurrency, batch_size: batchSize, batch_wait_ms: batchWaitMs });
  return {
    ctx: { config, logger, db },
    logger,
    async stop() {
      await work.close();
      await webhooks.close(1_000);
      server?.close();
      await db.close();
    },
  };
}

/**
 * The webhook dispatcher process: consumes the `webhooks` queue (low latency; retries are delayed
 * jobs) and sweeps the outbox in PostgreSQL for everything a queue can lose.
 */
async function startWebhookDispatcher(config: Config): Promise<Started> {
  const logger = createLogger('webhook-dispatcher', config);
  requireSplitMode(config, 'webhook dispatcher');
  const settings = dispatcherSettings(config);
  const db = await openDatabase(config, logger);
  await sealSecrets(config, db, logger);
  const queue = createWebhookQueue({ redisUrl: config.queueUrl, prefix: config.redisKeyPrefix, logger, isWorker: true });
  const metrics = dispatcherMetrics(db.knex);
  const dispatcher = new WebhookDispatcher(db.knex, logger, settings, { scheduleRetry: queuedRetries(queue), onAttempt: (o) => metrics.observeAttempt(o) });
  const reconciler = new OutboxReconciler(dispatcher, settings.reconcileIntervalMs, logger);
  queue.process(settings.concurrency, (job) => dispatcher.deliver(job.accountId, job.deliveryId));
  await reconciler.start();
  periodicMetrics(metrics.registry);
  const server = listenMetrics(metrics.registry, config.webhooks.metricsPort, config.host, logger);
  logger.info('webhook dispatcher started', {
    concurrency: settings.concurrency,
    timeout_ms: settings.timeoutMs,
    retry_delays_ms: settings.retryDelaysMs,
    reconcile_interval_ms: settings.reconcileIntervalMs,
    extra_ca: settings.ca !== undefined,
  });
  return {
    ctx: { config, logger, db },
    logger,
    async stop() {
      logger.info('draining', { in_flight: dispatcher.inFlight });
      await reconciler.stop();
      // The queue stops taking jobs at once; both wait for the attempts already running.
      await Promise.all([dispatcher.stop(DRAIN_MS), queue.close(DRAIN_MS + 1_000)]);
      server?.close();
      await db.close();
    },
  };
}
