import { Router, Response } from 'express';
import { exportRecords, markdownHeader, markdownMemory } from '@ams/portability';
import type { AppContext } from '../../context';
import { requestResources } from '../../memory-deps';
import { requireScope } from '../../middleware/require-scope';
import { validate } from '../../validation/validate';
import { ExportQuery, exportQuery } from './export.schemas';

/** Writes with backpressure: a slow client holds the database cursor back instead of filling memory. */
async function write(res: Response, chunk: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(chunk)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }
  return !res.destroyed;
}

/** GET /v1/export (admin): the account's data as NDJSON, or its memories as Markdown for people. */
export function exportRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/v1/export', requireScope('admin'), async (req, res) => {
    const q = validate<ExportQuery>(exportQuery, req.query);
    const markdown = q.format === 'markdown';
    // On the primary: a stream under way cannot start again there if a replica failed it midway.
    const records = exportRecords({ ...requestResources(ctx, req), db: ctx.db.knex }, req.auth!, q, markdown ? ['memory'] : undefined);
    // The first record (the header) resolves the filters: a failure there still gets the error envelope.
    const first = await records.next();
    const stamp = new Date().toISOString().slice(0, 10);
    res.status(200);
    res.type(markdown ? 'text/markdown; charset=utf-8' : 'application/x-ndjson');
    res.setHeader('Content-Disposition', `attachment; filename="memories-${stamp}.${markdown ? 'md' : 'ndjson'}"`);
    try {
      if (!first.done && !(await write(res, markdown ? markdownHeader(first.value) : `${JSON.stringify(first.value)}\n`))) return;
      for await (const record of records) {
        if (!(await write(res, markdown ? markdownMemory(record) : `${JSON.stringify(record)}\n`))) return;
      }
      res.end();
    } catch (err) {
      // Headers are gone: the client sees a truncated body, never a line that pretends to be data.
      ctx.logger.error('export failed mid-stream', { error: (err as Error).message, request_id: req.requestId });
      res.destroy(err as Error);
    } finally {
      await records.return(undefined);
    }
  });
  return router;
}
