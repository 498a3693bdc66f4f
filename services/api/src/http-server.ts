import { createServer, Server, ServerResponse } from 'node:http';
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
  // The answers in progress, so a drain can mark them `Connection: close` (closeGracefully).
  const state: DrainState = { draining: false, open: new Set() };
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (state.draining) res.setHeader('Connection', 'close');
    state.open.add(res);
    res.once('close', () => {
      state.open.delete(res);
      // A response sent before the drain began left its connection open: closed once idle.
      if (state.draining) setImmediate(() => server.closeIdleConnections());
    });
  });
  drainStates.set(server, state);
  return server;
}

interface DrainState {
  draining: boolean;
  open: Set<ServerResponse>;
}
const drainStates = new WeakMap<Server, DrainState>();

/**
 * Stops accepting and resolves once the requests in flight are answered. A keep-alive client
 * sending request after request would hold its connection, and the process, open to the end of
 * the grace period: every answer from now on says `Connection: close`, every connection is closed
 * once idle, and what is still open at `deadlineMs` (a long stream) is cut.
 */
export function closeGracefully(server: Server, deadlineMs: number): Promise<void> {
  const state = drainStates.get(server);
  if (state) {
    state.draining = true;
    for (const res of state.open) if (!res.headersSent) res.setHeader('Connection', 'close');
  }
  const cut = setTimeout(() => server.closeAllConnections(), deadlineMs);
  return new Promise<void>((resolve) =>
    server.close(() => {
      clearTimeout(cut);
      resolve();
    }),
  );
}
