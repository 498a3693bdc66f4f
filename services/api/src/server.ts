import { createLogger, loadConfig, runService, secretBoxFor } from '@ams/core';
import { createDatabase, migrateLatest, sealWebhookSecrets } from '@ams/db';
import { createEmbedder, SwitchableEmbedder, withQueryCache } from '@ams/embeddings';
import { followActiveModel, modelLoader } from '@ams/ingestion';
import { serveMetrics } from '@ams/metrics';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { bootstrapAdminKey } from '@ams/accounts';
import { closeApp, createApp } from './app';
import type { AppContext } from './context';
import { announceBootstrapKey } from './lib/bootstrap-key-output';
import { createHttpServer } from './http-server';
import { searchHelpers } from './search-helpers';
import { connectRedis } from './lib/redis';
import { createWebhookDispatch } from './lib/webhook-dispatch';
import { apiMetrics } from './lib/api-metrics';
import { createIngestion } from './lib/ingestion';
import { startReadRouting } from './lib/read-routing';

const SHUTDOWN_GRACE_MS = 10_000;

/** The API process: HTTP, plus the embedding worker and webhook dispatcher in-process in embedded mode. */
runService(SHUTDOWN_GRACE_MS, async () => {
  const config = loadConfig();
  const logger = createLogger('api', config);
  const db = await createDatabase(config, logger);
  const privacy = db.dataDirPrivacy;
  if (privacy?.exposed) logger.warn('DATA_DIR had files other users could read or write; made them owner-only', { data_dir: config.dataDir, entries: privacy.exposed });
  for (const entry of privacy?.unfixable ?? []) logger.warn('DATA_DIR entry left readable by other users: change its owner or mode', { path: entry.path, error: entry.error });
  const applied = await migrateLatest(db.knex);
  if (applied.length) logger.info('migrations applied', { migrations: applied });
  const sealed = await sealWebhookSecrets(db.knex, secretBoxFor(config));
  if (sealed) logger.info('webhook secrets sealed with the current key', { webhooks: sealed });
  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined;

  // One registry for the whole process: the app's metrics, the query cache's and Node's own.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'ams_api_' });
  const configured = withQueryCache(await createEmbedder(config.embedding, logger), { size: config.embedding.queryCacheSize, registry });
  // The store's active model wins over the configured one until a re-embed switches (ams reembed).
  const models = modelLoader(config, [configured]);
  const embedder = new SwitchableEmbedder(configured);
  await followActiveModel({ db: db.knex, embedder, models, logger });
  logger.info('embedder ready', { provider: embedder.provider, model: embedder.model, dimensions: embedder.dimensions });

  const webhooks = createWebhookDispatch(config, db, logger, registry);
  const metrics = apiMetrics(db.knex, registry);
  const ingestion = createIngestion(config, { db, logger, embedder, redis, webhookDispatch: webhooks.dispatch, metrics, models });
  const readRouting = await startReadRouting(config, db, redis, logger);
  const ctx: AppContext = {
    config,
    logger,
    db,
    redis,
    embedder,
    ...searchHelpers(db.knex, logger),
    webhookDispatch: webhooks.dispatch,
    ingestion,
    metrics,
    models,
    reembedRunner: ingestion.reembedRunner,
    readRouting,
  };
  const app = createApp(ctx);
  ctx.imports?.startSweeping();
  const server = createHttpServer(app).listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  logger.info('api listening', { host: config.host, port: config.port, mode: config.mode, database: db.driver });
  // Keyless, so never on the public port: its own listener, on a private address by default.
  const metricsServer = config.metrics.port ? serveMetrics(registry, config.metrics.port, config.metrics.host) : undefined;
  metricsServer?.on('error', (err) => logger.warn('metrics server unavailable', { port: config.metrics.port, error: err.message }));
  if (metricsServer) logger.info('metrics listening', { url: `http://${config.metrics.host}:${config.metrics.port}/metrics` });

  if (config.bootstrapAdminKey) {
    const key = await bootstrapAdminKey({ db: ctx.db.knex });
    const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
    if (key) announceBootstrapKey(key, { baseUrl: base, dataDir: config.dataDir });
  }
  return {
    logger,
    // Stop accepting, let in-flight requests finish, then the in-process workers, Redis and the database.
    async stop() {
      server.closeIdleConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeApp(app);
      metricsServer?.close();
      await ctx.imports?.close();
      await ingestion.close();
      await webhooks.close();
      await redis?.close();
      await readRouting?.close();
      await ctx.commonWords.close();
      // Searches answered before the stop are still being recorded.
      await ctx.searches.written();
      await db.close();
    },
  };
});
