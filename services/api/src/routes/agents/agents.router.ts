import { Router } from 'express';
import { agentStats, createAgent, deleteAgent, getAgent, listAgents, patchAgent } from '@ams/accounts';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { requestResources } from '../../memory-deps';
import { onReader } from '../../middleware/route-reads';
import { requireScope } from '../../middleware/require-scope';
import { listResponse } from '../../validation/common.schemas';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import { createAgentBody, CreateAgentBody, listAgentsQuery, ListAgentsQuery, patchAgentBody, PatchAgentBody } from './agents.schemas';

export function agentsRouter(ctx: AppContext): Router {
  const router = Router();

  router.post('/v1/agents', requireScope('write'), async (req, res) => {
    res.status(201).json(await createAgent(store(ctx), req.auth!, validate<CreateAgentBody>(createAgentBody, req.body)));
  });

  router.get('/v1/agents', requireScope('read'), async (req, res) => {
    const page = await onReader(ctx, req, () => listAgents(requestResources(ctx, req), req.auth!, validate<ListAgentsQuery>(listAgentsQuery, req.query)));
    res.json(listResponse(page, page.data, true));
  });

  router.get('/v1/agents/:id', requireScope('read'), async (req, res) => {
    res.json(await onReader(ctx, req, () => getAgent(requestResources(ctx, req), req.auth!, pathId(req, 'Agent'))));
  });

  router.get('/v1/agents/:id/stats', requireScope('read'), async (req, res) => {
    res.json(await onReader(ctx, req, () => agentStats(requestResources(ctx, req), req.auth!, pathId(req, 'Agent'))));
  });

  router.patch('/v1/agents/:id', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Agent');
    res.json(await patchAgent(store(ctx), req.auth!, id, validate<PatchAgentBody>(patchAgentBody, req.body)));
  });

  router.delete('/v1/agents/:id', requireScope('delete'), async (req, res) => {
    await deleteAgent(store(ctx), req.auth!, pathId(req, 'Agent'));
    res.status(204).end();
  });
  return router;
}
