import { Router } from 'express';
import {
  createSession,
  deleteSession,
  endSession,
  getOrCreateSession,
  getSession,
  listSessions,
  summarizeSession,
} from '@ams/knowledge';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { requestResources } from '../../memory-deps';
import { onReader } from '../../middleware/route-reads';
import { requireScope } from '../../middleware/require-scope';
import { listResponse } from '../../validation/common.schemas';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import {
  createSessionBody,
  CreateSessionBody,
  deleteSessionQuery,
  endSessionBody,
  EndSessionBody,
  getOrCreateSessionBody,
  getSessionQuery,
  listSessionsQuery,
  ListSessionsQuery,
} from './sessions.schemas';

export function sessionsRouter(ctx: AppContext): Router {
  const router = Router();

  router.post('/v1/sessions', requireScope('write'), async (req, res) => {
    res.status(201).json(await createSession(store(ctx), req.auth!, validate<CreateSessionBody>(createSessionBody, req.body)));
  });

  router.post('/v1/sessions/get-or-create', requireScope('write'), async (req, res) => {
    const body = validate<CreateSessionBody & { external_id: string }>(getOrCreateSessionBody, req.body);
    res.json(await getOrCreateSession(store(ctx), req.auth!, body));
  });

  router.get('/v1/sessions', requireScope('read'), async (req, res) => {
    const page = await onReader(ctx, req, () => listSessions(requestResources(ctx, req), req.auth!, validate<ListSessionsQuery>(listSessionsQuery, req.query)));
    res.json(listResponse(page, page.data));
  });

  router.get('/v1/sessions/:id', requireScope('read'), async (req, res) => {
    const id = pathId(req, 'Session');
    const { include_memories } = validate<{ include_memories: boolean }>(getSessionQuery, req.query);
    res.json(await onReader(ctx, req, () => getSession(requestResources(ctx, req), req.auth!, id, include_memories)));
  });

  router.post('/v1/sessions/:id/end', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Session');
    res.json(await endSession(store(ctx), req.auth!, id, validate<EndSessionBody>(endSessionBody, req.body)));
  });

  router.post('/v1/sessions/:id/summarize', requireScope('write'), async (req, res) => {
    res.json(await summarizeSession(store(ctx), req.auth!, pathId(req, 'Session')));
  });

  router.delete('/v1/sessions/:id', requireScope('delete'), async (req, res) => {
    const id = pathId(req, 'Session');
    const { cascade_memories } = validate<{ cascade_memories: boolean }>(deleteSessionQuery, req.query);
    res.json(await deleteSession(store(ctx), req.auth!, id, cascade_memories));
  });
  return router;
}
