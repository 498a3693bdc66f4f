import type { Express } from 'express';
import { Registry } from 'prom-client';
import { createLogger, loadConfig } from '@ams/core';
import { createApp } from '../app';
import type { AppContext } from '../context';
import { ROUTE_DOCS } from './all-route-docs';
import { buildOpenApiDocument, BuiltDocument } from './build-document';

/**
 * The app as the generator sees it, built without a database or a model: routers only capture the
 * context, so nothing here is reached unless a request is served (which would then fail loudly).
 */
export function describeOnlyApp(): Express {
  const config = loadConfig({ LOG_LEVEL: 'error' });
  const unavailable = (known: object = {}) =>
    new Proxy(known, {
      get(t, prop) {
        if (prop in t) return (t as Record<string | symbol, unknown>)[prop];
        throw new Error(`describe-only app: no ${String(prop)} outside a running service`);
      },
    });
  // Admission reads the driver, registers its metrics, and the load gauge looks for a connection pool
  // to watch when the app is made: a server database's driver, a registry of its own, a client without a pool.
  const db = unavailable({ driver: 'postgres', knex: unavailable({ client: {} }) });
  const ctx = { config, logger: createLogger('api', config), db, embedder: unavailable(), metrics: unavailable({ registry: new Registry() }), imports: unavailable() } as unknown as AppContext;
  return createApp(ctx).app;
}

/** The OpenAPI document of the API, with the parity findings. */
export const describeApi = (): BuiltDocument => buildOpenApiDocument(describeOnlyApp(), ROUTE_DOCS);
