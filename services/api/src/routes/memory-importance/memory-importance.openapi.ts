import { memory } from '../memories/memories.openapi';
import type { RouteDocs } from '../../openapi/route-docs';
import { importanceBody } from './memory-importance.schemas';

export const memoryImportanceOpenApi: RouteDocs = {
  'PUT /v1/memories/:id/importance': {
    summary: "Promote or demote a memory: its importance, and its tier (following the importance unless given)",
    tag: 'memories',
    body: importanceBody,
    example: { importance: 0.9 },
    responses: { 200: { description: 'The updated memory', schema: memory } },
  },
};
