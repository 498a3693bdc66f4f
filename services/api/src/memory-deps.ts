import type { Request } from 'express';
import { embedNow, ingestionPolicy } from '@ams/ingestion';
import type { MemoryDeps } from '@ams/memories';
import type { AppContext } from './context';

/** What the memory domain needs for one request: the process's resources and the request's logger. */
export function memoryDeps(ctx: AppContext, req: Request): MemoryDeps {
  const db = ctx.db.knex;
  const logger = req.log;
  return {
    db,
    embedder: ctx.embedder,
    logger,
    dispatch: ctx.webhookDispatch,
    ingestion: ctx.ingestion,
    onSearch: ctx.metrics?.observeSearch,
    embedNow: (accountId, id) =>
      embedNow({ db, embedder: ctx.embedder, logger, ...ingestionPolicy(ctx.config), onDeliveries: ctx.webhookDispatch }, accountId, id),
  };
}
