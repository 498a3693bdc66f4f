import { createServer, Server } from 'node:http';
import type { Express } from 'express';

/**
 * Request headers (the URL included) may reach 64 KiB: a client repeats a whole prompt in the
 * search URL's query string (client-compat G8), past Node's 16 KiB default.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

/** The API's HTTP server: server.ts listens on it; tests of long URLs use it too. */
export function createHttpServer(app: Express): Server {
  return createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app);
}
