import Joi from 'joi';
import { isoTime, json, listOf, RouteDocs, shape, uuidOut } from '../../openapi/route-docs';
import { createEntityBody, linkBody, listEntitiesQuery, patchEntityBody } from './entities.schemas';

export const entity = shape({
  object: Joi.string().valid('entity'),
  id: uuidOut,
  name: Joi.string(),
  entity_type: Joi.string(),
  metadata: json,
  memory_count: Joi.number().integer(),
  relationship_count: Joi.number().integer(),
  created_at: isoTime,
  updated_at: isoTime,
});

const link = shape({ entity_id: uuidOut, memory_id: uuidOut, relationship: Joi.string(), relevance_score: Joi.number(), created_at: isoTime });

export const entitiesOpenApi: RouteDocs = {
  'POST /v1/entities': {
    summary: 'Create an entity',
    body: createEntityBody,
    example: { name: 'PostgreSQL', entity_type: 'technology' },
    errors: { 409: 'An entity of that name and type exists' },
    responses: { 201: { description: 'Created', schema: entity } },
  },
  'POST /v1/entities/link': {
    summary: 'Link an entity to a memory',
    body: linkBody,
    errors: { 409: 'Already linked' },
    responses: { 201: { description: 'The link', schema: link } },
  },
  'GET /v1/entities': { summary: 'List entities', query: listEntitiesQuery, responses: { 200: { description: 'A page of entities', schema: listOf(entity, true) } } },
  'GET /v1/entities/:id': { summary: 'Get an entity', responses: { 200: { description: 'The entity', schema: entity } } },
  'PATCH /v1/entities/:id': {
    summary: 'Update an entity',
    body: patchEntityBody,
    errors: { 409: 'An entity of that name and type exists' },
    responses: { 200: { description: 'The updated entity', schema: entity } },
  },
  'DELETE /v1/entities/:id': { summary: 'Delete an entity', responses: { 204: { description: 'Deleted' } } },
};
