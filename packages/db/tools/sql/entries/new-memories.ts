import { newMemoriesRepository } from '../../../src/repositories/new-memories.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, API_KEY, AGENT, AT, EVENT, NEW_MEMORY } from '../fixtures';
import { NEW } from './memories';

const EVENTS = [{ accountId: ACCOUNT, type: 'memory.created' as const, data: { memory_id: NEW_MEMORY }, eventId: EVENT, createdAt: AT, url: 'https://hooks.example.com/once' }];

export const newMemories = entriesOf('newMemoriesRepository', newMemoriesRepository, {
  insertWithRecords: [
    { name: 'a memory alone', args: [{ memories: [NEW], entities: [], events: [] }] },
    {
      name: 'a create with entities, events and its writer (on Citus, called outside a transaction, it opens its own)',
      args: [
        { memories: [NEW], entities: [{ accountId: ACCOUNT, memoryId: NEW_MEMORY, name: 'PostgreSQL', entityType: 'technology', relevance: 0.9 }], events: EVENTS },
        { keyId: API_KEY, agentId: AGENT, change: 'create' },
      ],
    },
  ],
});
