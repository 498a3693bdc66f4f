import { memoryVersionsRepository } from '../../../src/repositories/memory-versions.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AGENT, API_KEY, AT, EARLIER, MEMORY } from '../fixtures';

const ACTOR = { keyId: API_KEY, agentId: AGENT, change: 'update' as const };

export const memoryVersions = entriesOf('memoryVersionsRepository', memoryVersionsRepository, {
  actorInStatement: [{ args: [ACTOR], noStatement: 'the one-row subquery newMemoriesRepository.insertWithRecords joins (new-memories.sql)' }],
  setActor: [{ args: [ACTOR] }],
  list: [
    { args: [ACCOUNT, MEMORY, { limit: 20, offset: 0 }] },
    { name: 'before a version', args: [ACCOUNT, MEMORY, { limit: 20, offset: 0, beforeVersion: 3 }] },
  ],
  find: [{ args: [ACCOUNT, MEMORY, 1] }],
  upsertMany: [
    {
      args: [[{
        account_id: ACCOUNT, memory_id: MEMORY, version: 2, change: 'update', changed_fields: ['content'], before: { content: 'The billing service stores invoices' },
        state: { content: 'The billing service stores invoices in PostgreSQL' }, actor_key_id: API_KEY, actor_agent_id: AGENT, created_at: EARLIER,
      }]],
    },
  ],
  prune: [{ args: [{ olderThan: AT, keep: 10 }, 1000] }],
});
