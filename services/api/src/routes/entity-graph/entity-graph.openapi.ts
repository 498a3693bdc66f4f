import Joi from 'joi';
import { isoTime, RouteDocs, shape, unixTime, uuidOut } from '../../openapi/route-docs';
import { entity } from '../entities/entities.openapi';
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
  'GET /v1/entities/:id/graph': {
    summary: 'An entity with its linked memories and co-mentioned entities',
    responses: {
      200: {
        description: 'The graph around the entity',
        schema: shape({
          object: Joi.string().valid('entity_graph'),
          entity,
          memories: Joi.array().items(
            shape({
              memory_id: uuidOut,
              agent_id: uuidOut.allow(null),
              content_preview: Joi.string(),
              relationship: Joi.string().allow(null),
              relevance_score: Joi.number(),
              created_at: isoTime,
            }),
          ),
          neighbours: Joi.array().items(shape({ id: uuidOut, name: Joi.string(), entity_type: Joi.string(), shared_memories: Joi.number().integer() })),
        }),
      },
    },
  },
};
