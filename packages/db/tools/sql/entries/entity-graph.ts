import { entityGraphRepository } from '../../../src/repositories/entity-graph.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AGENT, ENTITY } from '../fixtures';

export const entityGraph = entriesOf('entityGraphRepository', entityGraphRepository, {
  neighbours: [{ args: [ACCOUNT, ENTITY, { maxDepth: 2, limit: 20, agentId: AGENT }] }],
  memoriesOf: [
    { args: [ACCOUNT, ENTITY, { agentId: AGENT, limit: 20, privateOnly: true, order: 'relevance' }] },
    { name: 'newest first', args: [ACCOUNT, ENTITY, { limit: 20, order: 'recent' }] },
  ],
  coMentioned: [{ args: [ACCOUNT, ENTITY, { agentId: AGENT, limit: 20 }] }],
});
