import Joi from 'joi';
import { RouteDocs, shape, unixTime, uuidOut } from '../../openapi/route-docs';
import { neighbourhoodQuery } from './entity-graph.schemas';

const entityRef = { id: uuidOut, name: Joi.string(), type: Joi.string(), entity_type: Joi.string() };

export const entityGraphOpenApi: RouteDocs = {
  'GET /v1/entities/:id/neighborhood': {
    summary: 'Entities reachable from this one over shared memories, and its memories',
    tag: 'entities',
    query: neighbourhoodQuery,
    responses: {
      200: {
        description: 'The entity, its neighbours (nearest first) and some of its memories',
        schema: shape({
          entity: shape(entityRef),
          neighbors: Joi.array().items(shape({ ...entityRef, relationship: Joi.string(), depth: Joi.number().integer() })),
          total_neighbors: Joi.number().integer(),
          depth: Joi.number().integer(),
          memories: Joi.array().items(shape({ id: uuidOut, content: Joi.string(), relationship: Joi.string().allow(null), created_at: unixTime })),
        }),
      },
    },
  },
};
