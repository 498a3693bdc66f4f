import type { Request, Response } from 'express';
import { ApiError } from '@ams/core';
import type { Embedder } from '@ams/embeddings';
import { embedNow, ingestionPolicy } from '@ams/ingestion';
import type { MemoryDeps, SearchDeps } from '@ams/memories';
import type { AppContext } from './context';
import { readerFor } from './middleware/route-reads';
import { isReadRequest, requestSignal } from './middleware/backpressure';
import { withinOwnDeadline } from './middleware/request-signal';

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
 * primary: @ams/runtime's read-routing.ts), whose queries stop with the request (runAsRead runs it under
 * whileReading: when its client goes away or its deadline passes the running query is cancelled and
 * the steps left are skipped), and an embedder that stops with it too (no query embedding). Writes get the primary and the plain embedder, and always finish. What a read
 * causes (a search's record) is written by the process's SearchRecorder, on the primary.
 */
export function requestResources(ctx: AppContext, req: Request): SearchDeps {
  const process = { searches: ctx.searches, commonWords: ctx.commonWords, onSearch: ctx.metrics?.observeSearch };
  const resources = isReadRequest(req)
    ? { ...process, db: readerFor(ctx, req), embedder: stopsWith(ctx.embedder, requestSignal(req)) }
    : { ...process, db: ctx.db.knex, embedder: ctx.embedder };
  // Read when a line is written: the request's logger is made then (request-logger.ts), and most requests write none.
  return Object.defineProperty(resources, 'logger', { get: () => req.log, enumerable: true }) as SearchDeps;
}

/** What the memory domain needs for one request: the process's resources and the request's logger. */
export function memoryDeps(ctx: AppContext, req: Request): MemoryDeps {
  const resources = requestResources(ctx, req);
  const { db, embedder } = resources;
  // Added to `resources`, not spread from it: a spread would read its logger now.
  return Object.assign(resources, {
    dispatch: ctx.webhookDispatch,
    ingestion: ctx.ingestion,
    embedNow: (accountId: string, id: string) =>
      embedNow({ db, embedder, logger: resources.logger, ...ingestionPolicy(ctx.config), onDeliveries: ctx.webhookDispatch }, accountId, id),
  });
}

/**
 * Runs a search under SEARCH_TIMEOUT_MS, its own deadline below the request's (docs/api.md,
 * "Bounds on a search"): `run` takes its resources (memoryDeps) inside, so they stop with it.
 */
export function withinSearchDeadline<T>(ctx: AppContext, req: Request, res: Response, run: () => Promise<T>): Promise<T> {
  const ms = ctx.config.backpressure.searchTimeoutMs;
  const late = () => new ApiError('service_unavailable', `The search did not complete within ${ms} ms (SEARCH_TIMEOUT_MS); narrow it (fewer words, a smaller metadata_filter) or retry later.`);
  return withinOwnDeadline(req, res, ms, late, run);
}
