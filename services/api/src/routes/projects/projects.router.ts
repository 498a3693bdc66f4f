import { Router } from 'express';
import { ApiError } from '@ams/core';
import { createProject, deleteProject, getProject, listProjects, patchProject, projectContext } from '@ams/knowledge';
import type { AppContext } from '../../context';
import { store } from '../../domain-deps';
import { requireScope } from '../../middleware/require-scope';
import { listResponse } from '../../validation/common.schemas';
import { pathId } from '../../validation/path-params';
import { validate } from '../../validation/validate';
import { createProjectBody, CreateProjectBody, listProjectsQuery, ListProjectsQuery, patchProjectBody, PatchProjectBody, SLUG } from './projects.schemas';

export function projectsRouter(ctx: AppContext): Router {
  const router = Router();

  router.post('/v1/projects', requireScope('write'), async (req, res) => {
    res.status(201).json(await createProject(store(ctx), req.auth!, validate<CreateProjectBody>(createProjectBody, req.body)));
  });

  router.get('/v1/projects', requireScope('read'), async (req, res) => {
    const page = await listProjects(store(ctx), req.auth!, validate<ListProjectsQuery>(listProjectsQuery, req.query));
    res.json(listResponse(page, page.data));
  });

  // The context route names the project by slug, not UUID.
  router.get('/v1/projects/:slug/context', requireScope('read'), async (req, res) => {
    const slug = String(req.params.slug);
    if (!SLUG.test(slug)) throw ApiError.notFound('Project');
    res.json(await projectContext(store(ctx), req.auth!, slug));
  });

  router.get('/v1/projects/:id', requireScope('read'), async (req, res) => {
    res.json(await getProject(store(ctx), req.auth!, pathId(req, 'Project')));
  });

  router.patch('/v1/projects/:id', requireScope('write'), async (req, res) => {
    const id = pathId(req, 'Project');
    res.json(await patchProject(store(ctx), req.auth!, id, validate<PatchProjectBody>(patchProjectBody, req.body)));
  });

  router.delete('/v1/projects/:id', requireScope('delete'), async (req, res) => {
    await deleteProject(store(ctx), req.auth!, pathId(req, 'Project'));
    res.status(204).end();
  });
  return router;
}
