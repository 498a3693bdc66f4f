import type { Server } from 'node:http';
import { ConfigError, createLogger, loadConfig, Logger } from '@ams/core';
import { createDatabase, migrateLatest } from '@ams/db';
import { createEmbedder } from '@ams/embeddings';
import { createApp } from './app';
import type { AppContext } from './context';
import { connectRedis } from './lib/redis';
import { createWebhookDispatch } from './lib/webhook-dispatch';
import { createIngestion } from './lib/ingestion';
import { bootstrapAdminKey } from './services/accounts.service';

const SHUTDOWN_GRACE_MS = 10_000;

function printBootstrapKey(key: string, port: number, host: string): void {
  const base = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  // Printed once, on the terminal only: the key is never logged.
  process.stdout.write(
    [
      '',
      '  First start: an admin API key was created. It is shown only this once; keep it safe.',
      '',
      `    ${key}`,
      '',
      '  Try it:',
      `    curl -H "Authorization: Bearer ${key}" ${base}/v1/api-keys`,
      '',
    ].join('\n') + '\n',
  );
}

async function start(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('api', config);
  const db = await createDatabase(config);
  const applied = await migrateLatest(db.knex);
  if (applied.length) logger.info('migrations applied', { migrations: applied });
  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined;

  const embedder = await createEmbedder(config.embedding, logger);
  logger.info('embedder ready', { provider: embedder.provider, model: embedder.model, dimensions: embedder.dimensions });

  const webhooks = createWebhookDispatch(config, db, logger);
  const ingestion = createIngestion(config, { db, logger, embedder, redis, webhookDispatch: webhooks.dispatch });
  const ctx: AppContext = { config, logger, db, redis, embedder, webhookDispatch: webhooks.dispatch, ingestion };
  const app = createApp(ctx);
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  logger.info('api listening', { host: config.host, port: config.port, mode: config.mode, database: db.driver });

  if (config.bootstrapAdminKey) {
    const key = await bootstrapAdminKey(ctx);
    if (key) printBootstrapKey(key, config.port, config.host);
  }
  installShutdown(server, ctx, logger, async () => {
    await ingestion.close();
    await webhooks.close();
  });
}

/** Stop accepting, let in-flight requests finish, then close Redis and the database. */
function installShutdown(server: Server, ctx: AppContext, logger: Logger, closeWorkers: () => Promise<void>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const force = setTimeout(() => {
      logger.error('shutdown grace period exceeded; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await closeWorkers();
    await ctx.redis?.close();
    await ctx.db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

start().catch((err) => {
  // Config errors name the variable and the fix; anything else is unexpected.
  process.stderr.write(`${err instanceof ConfigError ? err.message : (err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
