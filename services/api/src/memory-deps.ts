import type { Request } from 'express';
import type { Embedder } from '@ams/embeddings';
import { embedNow, ingestionPolicy } from '@ams/ingestion';
import type { MemoryDeps, SearchDeps } from '@ams/memories';
import type { AppContext } from './context';
import { readerFor } from './middleware/route-reads';
import { isReadRequest, requestSignal } from './middleware/backpressure';

/** `embedder` refusing to start once `signal` has fired: a search nobody waits for skips its query embedding. */
function stopsWith(embedder: Embedder, signal: AbortSignal): Embedder {
  const guard = <T>(run: () => Promise<T>) => (signal.aborted ? Promise.reject(signal.reason) : run());
  const query = (embedder as { embedQuery?: (text: string) => Promise<Float32Array> }).embedQuery?.bind(embedder);
  return Object.create(embedder, {
    embed: { value: (texts: string[]) => guard(() => embedder.embed(texts)) },
    ...(query ? { embedQuery: { value: (text: string) => guard(() => query(text)) } } : {}),
  }) as Embedder;
}

/**
 * The database and embedder one request works with: for a read, its reader (a replica, or the
 * primary: lib/read-routing.ts), whose queries stop with the request (runAsRead runs it under
 * whileReading: when its client goes away or its deadline passes the running query is cancelled and
 * the steps left are skipped), and an embedder that stops with it too (no query embedding). Writes get the primary and the plain embedder, and always finish. What a read
 * causes (a search's record) is written by the process's SearchRecorder, on the primary.
 */
export function requestResources(ctx: AppContext, req: Request): SearchDeps {
  const process = { searches: ctx.searches, commonWords: ctx.commonWords, logger: req.log, onSearch: ctx.metrics?.observeSearch };
  if (!isReadRequest(req)) return { ...process, db: ctx.db.knex, embedder: ctx.embedder };
  const signal = requestSignal(req);
  return { ...process, db: readerFor(ctx, req), embedder: stopsWith(ctx.embedder, signal) };
}

/** What the memory domain needs for one request: the process's resources and the request's logger. */
export function memoryDeps(ctx: AppContext, req: Request): MemoryDeps {
  const resources = requestResources(ctx, req);
  const { db, embedder, logger } = resources;
  return {
    ...resources,
    dispatch: ctx.webhookDispatch,
    ingestion: ctx.ingestion,
    embedNow: (accountId, id) =>
      embedNow({ db, embedder, logger, ...ingestionPolicy(ctx.config), onDeliveries: ctx.webhookDispatch }, accountId, id),
  };
}
