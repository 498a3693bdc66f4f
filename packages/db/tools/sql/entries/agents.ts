import { agentsRepository } from '../../../src/repositories/agents.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AGENT, AT } from '../fixtures';

export const agents = entriesOf('agentsRepository', agentsRepository, {
  findLive: [{ args: [ACCOUNT, AGENT] }],
  findLiveByName: [{ args: [ACCOUNT, 'planner'] }],
  ensureByName: [
    { name: 'an agent that exists', args: [ACCOUNT, 'planner'] },
    { name: 'a new agent', args: [ACCOUNT, 'reviewer'] },
  ],
  insert: [{ args: [{ accountId: ACCOUNT, name: 'reviewer', description: 'Reviews changes', metadata: { team: 'core' }, clientKey: 'reviewer-1', config: { default_ttl_seconds: { default: 86400 } } }] }],
  list: [
    { args: [ACCOUNT, { limit: 20, offset: 0 }] },
    { name: 'next page by cursor', args: [ACCOUNT, { limit: 20, offset: 0, cursor: { createdAt: AT.toISOString(), id: AGENT } }] },
  ],
  update: [{ args: [ACCOUNT, AGENT, { name: 'planner-2', description: null, metadata: { team: 'core' }, config: { default_ttl_seconds: { task: 3600 } } }] }],
  markActive: [{ args: [ACCOUNT, [AGENT]] }],
  softDeleteWithMemories: [{ args: [ACCOUNT, AGENT] }],
  countsFor: [{ args: [ACCOUNT, [AGENT]] }],
  stats: [{ args: [ACCOUNT, AGENT] }],
});
