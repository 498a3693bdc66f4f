import { bootstrapAdminKey } from '@ams/accounts';
import { DRAIN_MS } from '@ams/runtime';
import { createApp } from './app';
import type { AppContext } from './context';
import { closeGracefully, createHttpServer } from './http-server';
import { announceBootstrapKey } from './lib/bootstrap-key-output';

/**
 * The API's HTTP layer, as @ams/runtime's start() runs it: the app on the configured port, and on a
 * first start the admin key. `close` stops accepting and lets the requests in flight finish.
 */
export async function serveApi(ctx: AppContext): Promise<{ close(): Promise<void> }> {
  const { config, logger } = ctx;
  const api = createApp(ctx);
  const server = createHttpServer(api.app).listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  logger.info('api listening', { host: config.host, port: config.port, mode: config.mode, database: ctx.db.driver });
  if (config.bootstrapAdminKey) {
    const key = await bootstrapAdminKey({ db: ctx.db.knex });
    const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
    if (key) announceBootstrapKey(key, { baseUrl: base, dataDir: config.dataDir });
  }
  return {
    async close() {
      await closeGracefully(server, DRAIN_MS);
      await api.close();
    },
  };
}
