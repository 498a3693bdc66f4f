import { sessionsRepository } from '../../../src/repositories/sessions.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AGENT, SESSION } from '../fixtures';

const NEW_SESSION = { accountId: ACCOUNT, agentId: AGENT, externalId: 'chat-2', project: 'billing', title: 'Invoice questions', metadata: {} };

export const sessions = entriesOf('sessionsRepository', sessionsRepository, {
  findLive: [{ args: [ACCOUNT, SESSION] }],
  insert: [{ args: [NEW_SESSION] }],
  getOrCreate: [
    { name: 'a new session', args: [NEW_SESSION] },
    { name: 'one that exists', args: [{ ...NEW_SESSION, externalId: 'chat-1' }] },
  ],
  list: [{ args: [ACCOUNT, { agentId: AGENT, project: 'billing', status: 'active' }, { limit: 20, offset: 0 }] }],
  end: [{ args: [ACCOUNT, SESSION, { summary: 'Answered where invoices live', metadata: { rating: 5 } }] }],
  amendEnded: [{ args: [ACCOUNT, SESSION, { summary: 'Answered where invoices live and for how long' }] }],
  saveSummary: [{ args: [ACCOUNT, SESSION, 'Answered where invoices live'] }],
  softDelete: [
    { args: [ACCOUNT, SESSION, false] },
    { name: 'with its memories', args: [ACCOUNT, SESSION, true] },
  ],
  memoryCounts: [{ args: [ACCOUNT, [SESSION]] }],
  contributors: [{ args: [ACCOUNT, SESSION] }],
  memoriesOf: [
    { args: [ACCOUNT, SESSION, false] },
    { name: 'with vectors', args: [ACCOUNT, SESSION, true] },
  ],
});
