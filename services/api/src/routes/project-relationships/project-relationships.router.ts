import { Router } from 'express';
import { ApiError } from '@ams/core';
import {
  addRelationship,
  impactAnalysis,
  projectDependencies,
  projectDependents,
  relatedProjects,
  sharedPatterns,
} from '@ams/knowledge';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';
import { validate } from '../../validation/validate';
import { SLUG } from '../projects/projects.schemas';
import {
  impactAnalysisBody,
  ImpactAnalysisBody,
  relationshipBody,
  RelationshipBody,
  sharedPatternsQuery,
} from './project-relationships.schemas';

/** A slug in the path that cannot be one names nothing. */
function pathSlug(raw: unknown): string {
  const slug = String(raw);
  if (!SLUG.test(slug)) throw ApiError.notFound('Project');
  return slug;
}

/**
 * The project graph (docs/clients.md, "Additional endpoints"). Mounted before the projects router, so the literal
 * segments (shared-patterns, impact-analysis) win over /v1/projects/{id}.
 */
export function projectRelationshipsRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/v1/projects/shared-patterns', requireScope('read'), async (req, res) => {
    res.json(await sharedPatterns(store(ctx), req.auth!, validate<{ a: string; b: string }>(sharedPatternsQuery, req.query)));
  });

  // An analysis changes nothing: read scope, like search.
  router.post('/v1/projects/impact-analysis', requireScope('read'), async (req, res) => {
    res.json(await impactAnalysis(store(ctx), req.auth!, validate<ImpactAnalysisBody>(impactAnalysisBody, req.body)));
  });

  router.post('/v1/projects/:slug/relationships', requireScope('write'), async (req, res) => {
    const slug = pathSlug(req.params.slug);
    const { created, relationship } = await addRelationship(store(ctx), req.auth!, slug, validate<RelationshipBody>(relationshipBody, req.body));
    res.status(created ? 201 : 200).json(relationship);
  });

  router.get('/v1/projects/:slug/dependencies', requireScope('read'), async (req, res) => {
    res.json(await projectDependencies(store(ctx), req.auth!, pathSlug(req.params.slug)));
  });

  router.get('/v1/projects/:slug/dependents', requireScope('read'), async (req, res) => {
    res.json(await projectDependents(store(ctx), req.auth!, pathSlug(req.params.slug)));
  });

  router.get('/v1/projects/:slug/related', requireScope('read'), async (req, res) => {
    res.json(await relatedProjects(store(ctx), req.auth!, pathSlug(req.params.slug)));
  });
  return router;
}
