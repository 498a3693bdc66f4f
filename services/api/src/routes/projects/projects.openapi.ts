import Joi from 'joi';
import { isoTime, json, listOf, RouteDocs, shape, unixTime, uuidOut } from '../../openapi/route-docs';
import { createProjectBody, listProjectsQuery, patchProjectBody } from './projects.schemas';

const project = shape({
  id: uuidOut,
  slug: Joi.string(),
  name: Joi.string(),
  description: Joi.string().allow(null, ''),
  stack: json,
  repo_url: Joi.string().allow(null),
  metadata: json,
  memory_count: Joi.number().integer(),
  created_at: isoTime,
  updated_at: isoTime,
});

const context = shape({
  project: shape({ id: uuidOut, slug: Joi.string(), name: Joi.string(), stack: json }),
  memories: Joi.array().items(shape({ id: uuidOut, content: Joi.string(), memory_type: Joi.string(), importance: Joi.number(), created_at: unixTime })),
  decisions: Joi.array().items(shape({ id: uuidOut, title: Joi.string(), status: Joi.string() })),
  patterns: Joi.array().items(shape({ id: uuidOut, title: Joi.string(), category: Joi.string().allow(null) })),
});

export const projectsOpenApi: RouteDocs = {
  'POST /v1/projects': {
    summary: 'Create (register) a project',
    description:
      'A write that names an unknown project slug (a memory\'s `project`, a decision\'s `project_slug`, ...) creates that project with only its slug. ' +
      'Registering that slug afterwards completes the same project: 201 with its id, creation time and memories kept, and the name, description, stack and repo URL given here (metadata merged). ' +
      'Registering a slug that was already registered is 409.',
    body: createProjectBody,
    example: { slug: 'billing', name: 'Billing service' },
    errors: { 409: 'A registered project with that slug exists' },
    responses: { 201: { description: 'Created, or an implicitly created project completed', schema: project } },
  },
  'GET /v1/projects': { summary: 'List projects', query: listProjectsQuery, responses: { 200: { description: 'A page of projects', schema: listOf(project) } } },
  'GET /v1/projects/:slug/context': {
    summary: "A project's context: its decisions, patterns and recent memories",
    responses: { 200: { description: 'The context', schema: context } },
  },
  'GET /v1/projects/:id': { summary: 'Get a project', description: "`{id}` is the project's id or its slug.", responses: { 200: { description: 'The project', schema: project } } },
  'PATCH /v1/projects/:id': {
    summary: 'Update a project',
    body: patchProjectBody,
    errors: { 409: 'A project with that slug exists' },
    responses: { 200: { description: 'The updated project', schema: project } },
  },
  'DELETE /v1/projects/:id': { summary: 'Delete a project', responses: { 204: { description: 'Deleted' } } },
};
