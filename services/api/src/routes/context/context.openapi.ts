import Joi from 'joi';
import { RouteDoc, RouteDocs, shape } from '../../openapi/route-docs';
import { buildContextBody } from './context.schemas';

const build: RouteDoc = {
  summary: 'Build a prompt context from the most relevant memories within a token budget',
  body: buildContextBody,
  responses: {
    200: {
      description: 'The context, ready to put in a prompt',
      schema: shape({ context: Joi.string().allow(''), memories_used: Joi.number().integer(), total_chars: Joi.number().integer() }),
    },
  },
};

export const contextOpenApi: RouteDocs = {
  'POST /v2/context/build': build,
  // The paths existing clients post to (docs/clients.md, "Additional endpoints").
  'POST /v2/context': { ...build, summary: `${build.summary} (alias of /v2/context/build)` },
  'POST /v1/memories/context': { ...build, summary: `${build.summary} (alias of /v2/context/build)`, tag: 'context' },
};
