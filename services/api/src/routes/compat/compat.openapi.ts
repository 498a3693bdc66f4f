import { agentsOpenApi } from '../agents/agents.openapi';
import { decisionsOpenApi } from '../decisions/decisions.openapi';
import { checkDecisionsQuery } from '../decisions/decisions.schemas';
import { entitiesOpenApi } from '../entities/entities.openapi';
import { memoriesOpenApi } from '../memories/memories.openapi';
import { projectsOpenApi } from '../projects/projects.openapi';
import { patternsOpenApi } from '../patterns/patterns.openapi';
import { searchPatternsQuery } from '../patterns/patterns.schemas';
import { sessionsOpenApi } from '../sessions/sessions.openapi';
import type { RouteDoc, RouteDocs } from '../../openapi/route-docs';

/** The operation a route for existing clients repeats, with what differs. */
const as = (doc: RouteDoc | undefined, changes: Partial<RouteDoc>): RouteDoc => {
  if (!doc) throw new Error('compat.openapi: the operation it repeats is not documented');
  return { ...doc, ...changes };
};
const BY_NAME = 'The path takes the agent\'s id or its name (an agent created with `id` is found by that key too).';

/** The method and path variants existing clients send (docs/clients.md, "Method and path variants"), beside the spec's routes. */
export const compatOpenApi: RouteDocs = {
  'PUT /v1/memories/:id': as(memoriesOpenApi['PATCH /v1/memories/:id'], { summary: 'Update a memory (PUT as PATCH)' }),
  'GET /v1/agents/:ref': as(agentsOpenApi['GET /v1/agents/:id'], { variantOf: 'GET /v1/agents/:id' }),
  'GET /v1/agents/:ref/stats': as(agentsOpenApi['GET /v1/agents/:id/stats'], { variantOf: 'GET /v1/agents/:id/stats' }),
  'PATCH /v1/agents/:ref': as(agentsOpenApi['PATCH /v1/agents/:id'], { variantOf: 'PATCH /v1/agents/:id' }),
  'DELETE /v1/agents/:ref': as(agentsOpenApi['DELETE /v1/agents/:id'], { variantOf: 'DELETE /v1/agents/:id' }),
  'PUT /v1/agents/:ref': as(agentsOpenApi['PATCH /v1/agents/:id'], { summary: 'Update an agent (PUT as PATCH)', description: BY_NAME }),
  'PUT /v1/sessions/:id/end': as(sessionsOpenApi['POST /v1/sessions/:id/end'], {
    summary: 'End a session, idempotently (an ended session answers 200, with a new summary if given)',
    errors: {},
  }),
  'GET /v1/decisions/check': as(decisionsOpenApi['POST /v1/decisions/check'], {
    summary: 'Find decisions similar to a proposal (query-string form; superseded ones only with include_superseded=true)',
    body: undefined,
    query: checkDecisionsQuery,
  }),
  'GET /v1/patterns/search': as(patternsOpenApi['POST /v1/patterns/search'], {
    summary: 'Search patterns (query-string form; an empty query lists)',
    body: undefined,
    query: searchPatternsQuery,
  }),
  'POST /v1/entities/links': as(entitiesOpenApi['POST /v1/entities/link'], { summary: 'Link an entity to a memory (alternative path)' }),
  'POST /v1/entities/:id/link': as(entitiesOpenApi['POST /v1/entities/link'], {
    summary: 'Link this entity to a memory',
    description: 'The path names the entity: `entity_id` in the body is not needed.',
  }),
  'GET /v1/projects/:ref': as(projectsOpenApi['GET /v1/projects/:id'], { variantOf: 'GET /v1/projects/:id' }),
};
