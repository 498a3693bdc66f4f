import type { Server } from 'node:http';
import type { Logger } from '@ams/core';
import { serveMetrics } from '@ams/metrics';
import type { Registry } from 'prom-client';

/**
 * `/metrics` of a process on a listener of its own (keyless, so never on the API's public port;
 * off when `port` is 0). A port already taken is logged, not fatal: the process serves without it.
 */
export function listenMetrics(registry: Registry, port: number, host: string, logger: Logger): Server | undefined {
  if (port <= 0) return undefined;
  const server = serveMetrics(registry, port, host);
  server.on('error', (err) => logger.warn('metrics server unavailable', { port, error: err.message }));
  server.on('listening', () => logger.info('metrics listening', { url: `http://${host}:${port}/metrics` }));
  return server;
}
