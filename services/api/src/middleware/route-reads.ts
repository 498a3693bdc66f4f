import type { Request, RequestHandler, Response } from 'express';
import type { Knex } from '@ams/db';
import type { AppContext } from '../context';
import { EVERYTHING, type ReadRoute } from '@ams/runtime';
import { isReadRequest } from './backpressure';

const readers = new WeakMap<Request, Knex>();

/**
 * Chooses the database of a read request (runAsRead calls it before the route runs): a replica
 * that has replayed the key's last write, or the primary. Never fails: any doubt is the primary.
 */
export async function routeRead(ctx: AppContext, req: Request): Promise<void> {
  const routing = ctx.readRouting;
  if (!routing || !req.auth) return;
  const started = performance.now();
  let route: ReadRoute;
  try {
    // No replica in rotation: the key's fence does not matter (no Redis round trip).
    const after = routing.replicas.anyUp() ? await routing.fences.after(req.auth.keyId) : undefined;
    const reader = after === null ? undefined : routing.replicas.reader(after);
    if (reader) readers.set(req, reader);
    route = after === null ? 'fence_unknown' : reader ? 'replica' : after !== undefined && routing.replicas.anyUp() ? 'own_write' : 'no_replica';
  } catch {
    route = 'fence_unknown';
  }
  routing.routed[route]++;
  routing.timing.readChecks++;
  routing.timing.readSeconds += (performance.now() - started) / 1000;
}

/** The database a request reads: its replica when routeRead chose one, else the primary. */
export function readerFor(ctx: AppContext, req: Request): Knex {
  return readers.get(req) ?? ctx.db.knex;
}

/**
 * Runs a read request's work (what takes its database through readerFor): when its replica fails
 * it (stopped, cut off, no connection to give), the work runs again, whole, on the primary, so a
 * replica going away costs a retry, never an error. Reads are safe to repeat.
 */
export function onReader<T>(ctx: AppContext, req: Request, run: () => Promise<T>): Promise<T> {
  const replica = readers.get(req);
  if (!replica || !ctx.readRouting) return run();
  return ctx.readRouting.replicas.read(replica, (db) => {
    readers.set(req, db);
    return run();
  });
}

/**
 * Fences each write: before a request that is not a read sends the end of its response, the
 * primary's WAL position is recorded against its key, so the key's next read (on any API process)
 * waits for a replica that has it. A position that cannot be read fences the key to the primary
 * until the fence expires.
 */
export function fenceWrites(ctx: AppContext): RequestHandler {
  return (req, res, next) => {
    const routing = ctx.readRouting;
    if (!routing) return next();
    const end = res.end as (...args: unknown[]) => Response;
    let fenced = false;
    res.end = function (this: Response, ...args: unknown[]) {
      if (fenced || !req.auth || isReadRequest(req)) return end.apply(this, args);
      fenced = true;
      const keyId = req.auth.keyId;
      const started = performance.now();
      routing.replicas
        .writePosition()
        .catch(() => EVERYTHING)
        .then((lsn) => routing.fences.note(keyId, lsn))
        .catch((err: Error) => req.log.warn('write fence not shared', { error: err.message }))
        .finally(() => {
          routing.timing.writeNotes++;
          routing.timing.writeSeconds += (performance.now() - started) / 1000;
          end.apply(this, args);
        });
      return this;
    } as Response['end'];
    next();
  };
}
