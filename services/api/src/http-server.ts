import { createServer, Server } from 'node:http';
import type { Express } from 'express';
import { answerClientErrors } from './lib/client-errors';
import { MAX_HEADER_COUNT } from './middleware/request-headers';

/**
 * Request headers (the URL included) may reach 64 KiB: a client repeats a whole prompt in the
 * search URL's query string (docs/clients.md, "Lenient input"), past Node's 16 KiB default.
 */
const MAX_HEADER_BYTES = 64 * 1024;

/**
 * The API's HTTP server (oversized headers and unparseable requests get the envelope): server.ts
 * listens on it; tests use it too. A missing Host is the app's to refuse (requireHostHeader).
 */
export function createHttpServer(app: Express): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false }, app);
  server.maxHeadersCount = MAX_HEADER_COUNT;
  answerClientErrors(server);
  return server;
}
