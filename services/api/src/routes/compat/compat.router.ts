import { Router } from 'express';
import { patchMemory } from '@ams/memories';
import { ApiError, isUuid } from '@ams/core';
import { agentIdFromPath } from '@ams/accounts';
import { agentStats, deleteAgent, getAgent, patchAgent } from '@ams/accounts';
import { checkDecisions } from '@ams/knowledge';
import { linkEntity } from '@ams/entities';
import { searchPatterns } from '@ams/knowledge';
import { getProjectBySlug } from '@ams/knowledge';
import { endSessionIdempotent } from '@ams/knowledge';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { memoryDeps, requestResources } from '../../memory-deps';
import { onReader } from '../../middleware/route-reads';
import { requireScope } from '../../middleware/require-scope';
import { pathId, pathRef } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import { agentNameOrId, patchAgentBody, PatchAgentBody } from '../agents/agents.schemas';
import { checkDecisionsQuery, CheckDecisionsBody } from '../decisions/decisions.schemas';
import { linkBody, LinkBody } from '../entities/entities.schemas';
import { patchMemoryBody, PatchMemoryBody } from '../memories/memories.schemas';
import { searchPatternsQuery, SearchPatternsBody } from '../patterns/patterns.schemas';
import { SLUG } from '../projects/projects.schemas';
import { endSessionBody, EndSessionBody } from '../sessions/sessions.schemas';

/**
 * The method and path variants existing clients send for spec operations (docs/clients.md, "Method and path variants"). Each
 * reaches the same service function, with the same scope, as the spec's route. Mounted before the
 * resource routers, so literal segments win over `{id}`; a segment the spec's route serves
 * (a UUID) is passed on to it unchanged.
 */
export function compatRouter(ctx: AppContext): Router {
  const router = Router();

  // PUT as PATCH.
  router.put('/v1/memories/:id', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Memory');
    res.json(await patchMemory(memoryDeps(ctx, req), req.auth!, id, validate<PatchMemoryBody>(patchMemoryBody, req.body)));
  });

  // Agents by name as well as id; PUT as PATCH.
  router.get('/v1/agents/:ref', requireScope('read'), async (req, res, next) => {
    if (isUuid(String(req.params.ref))) return next();
    res.json(await getAgent(store(ctx), req.auth!, await agentIdFromPath(store(ctx), req.auth!, pathRef(req, agentNameOrId, 'Agent', 'ref'))));
  });
  router.get('/v1/agents/:ref/stats', requireScope('read'), async (req, res, next) => {
    if (isUuid(String(req.params.ref))) return next();
    res.json(await agentStats(store(ctx), req.auth!, await agentIdFromPath(store(ctx), req.auth!, pathRef(req, agentNameOrId, 'Agent', 'ref'))));
  });
  router.put('/v1/agents/:ref', requireScope('write'), async (req, res) => {
    const id = await agentIdFromPath(store(ctx), req.auth!, pathRef(req, agentNameOrId, 'Agent', 'ref'));
    res.json(await patchAgent(store(ctx), req.auth!, id, validate<PatchAgentBody>(patchAgentBody, req.body)));
  });
  router.patch('/v1/agents/:ref', requireScope('write'), async (req, res, next) => {
    if (isUuid(String(req.params.ref))) return next();
    const id = await agentIdFromPath(store(ctx), req.auth!, pathRef(req, agentNameOrId, 'Agent', 'ref'));
    res.json(await patchAgent(store(ctx), req.auth!, id, validate<PatchAgentBody>(patchAgentBody, req.body)));
  });
  router.delete('/v1/agents/:ref', requireScope('delete'), async (req, res, next) => {
    if (isUuid(String(req.params.ref))) return next();
    await deleteAgent(store(ctx), req.auth!, await agentIdFromPath(store(ctx), req.auth!, pathRef(req, agentNameOrId, 'Agent', 'ref')));
    res.status(204).end();
  });

  // PUT end is idempotent (the spec's POST keeps its 409 on an ended session).
  router.put('/v1/sessions/:id/end', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Session');
    res.json(await endSessionIdempotent(store(ctx), req.auth!, id, validate<EndSessionBody>(endSessionBody, req.body)));
  });

  // GET forms of decision check and pattern search.
  router.get('/v1/decisions/check', requireScope('read'), async (req, res) => {
    res.json(await onReader(ctx, req, () => checkDecisions(requestResources(ctx, req), req.auth!, validate<CheckDecisionsBody>(checkDecisionsQuery, req.query))));
  });
  router.get('/v1/patterns/search', requireScope('read'), async (req, res) => {
    res.json(await onReader(ctx, req, () => searchPatterns(requestResources(ctx, req), req.auth!, validate<SearchPatternsBody>(searchPatternsQuery, req.query))));
  });

  // The entity-link paths.
  router.post('/v1/entities/links', requireScope('write'), async (req, res) => {
    res.status(201).json(await linkEntity(store(ctx), req.auth!, validate<LinkBody>(linkBody, req.body)));
  });
  router.post('/v1/entities/:id/link', requireScope('write'), async (req, res) => {
    const entityId = pathId(req, 'Entity');
    res.status(201).json(await linkEntity(store(ctx), req.auth!, validate<LinkBody>(linkBody, { ...req.body, entity_id: entityId })));
  });

  // A project by slug as well as by id.
  router.get('/v1/projects/:ref', requireScope('read'), async (req, res, next) => {
    const ref = String(req.params.ref);
    if (isUuid(ref)) return next();
    if (!SLUG.test(ref)) throw ApiError.notFound('Project');
    res.json(await getProjectBySlug(store(ctx), req.auth!, ref));
  });
  return router;
}
