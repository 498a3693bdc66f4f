import { decisionsRepository } from '../../../src/repositories/decisions.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AGENT, DECISION, MODEL, SESSION, vector } from '../fixtures';

export const decisions = entriesOf('decisionsRepository', decisionsRepository, {
  insert: [
    {
      args: [{
        accountId: ACCOUNT, agentId: AGENT, sessionId: SESSION, projectSlug: 'billing', title: 'Keep invoices ten years', rationale: 'The law asks for it',
        alternatives: 'Seven years', status: 'active', tags: ['compliance'], metadata: {}, embedding: vector(3), embeddingModel: MODEL,
      }],
    },
  ],
  findLive: [
    { args: [ACCOUNT, DECISION] },
    { name: 'locked', args: [ACCOUNT, DECISION, true] },
  ],
  list: [{ args: [ACCOUNT, { projectSlug: 'billing', status: 'active', tag: 'storage', tags: ['storage', 'compliance'] }, { limit: 20, offset: 0 }] }],
  update: [{ args: [ACCOUNT, DECISION, { title: 'Use PostgreSQL 16', status: 'superseded', tags: ['storage'], metadata: { reviewed: true }, embedding: vector(4), embeddingModel: MODEL }] }],
  softDelete: [{ args: [ACCOUNT, DECISION] }],
  similar: [{ args: [ACCOUNT, vector(1), MODEL, 1, 'billing', true] }],
  activeForProject: [{ args: [ACCOUNT, 'billing'] }],
});
