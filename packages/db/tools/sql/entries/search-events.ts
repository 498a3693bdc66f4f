import { searchEventsRepository } from '../../../src/repositories/search-events.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AGENT, MEMORIES } from '../fixtures';

export const searchEvents = entriesOf('searchEventsRepository', searchEventsRepository, {
  recordMany: [
    {
      args: [[
        { accountId: ACCOUNT, agentId: AGENT, query: 'where are invoices stored', searchMode: 'semantic', resultCount: 2, avgScore: 0.82, responseMs: 12, memoryIds: MEMORIES.slice(0, 2) },
        { accountId: ACCOUNT, agentId: null, query: 'pgbouncer', searchMode: 'keyword', resultCount: 0, avgScore: null, responseMs: 4 },
      ]],
    },
  ],
  summaryForAgent: [{ args: [ACCOUNT, AGENT] }],
});
