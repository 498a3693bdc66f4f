import { memoriesRepository, type NewMemory, type SearchFilters } from '../../../src/repositories/memories.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AGENT, AT, MEMORIES, MEMORY, MODEL, NEW_MEMORY, PROJECT, SESSION, vector } from '../fixtures';

/** A search as the API makes it by default: the agent's own, private, unarchived memories. */
export const SEARCH: SearchFilters = { accountId: ACCOUNT, agentId: AGENT, includeConfidential: false, includeArchived: false, embeddingModel: MODEL };

/** The same with every filter a request may add. */
export const FILTERED_SEARCH: SearchFilters = {
  ...SEARCH,
  tier: 'warm',
  minImportance: 0.3,
  projectId: PROJECT,
  sessionId: SESSION,
  longTermOnly: true,
  metadataFilter: [
    { key: 'source', op: '$eq', value: 'chat' },
    { key: 'lang', op: '$in', value: ['en', 'fr'] },
    { key: 'score', op: '$gte', value: 3 },
    { key: 'draft', op: '$exists', value: false },
  ],
  validity: { asOf: AT, includeSuperseded: true },
};

export const NEW: NewMemory & { id: string } = {
  id: NEW_MEMORY,
  accountId: ACCOUNT,
  agentId: AGENT,
  content: 'Invoices are sent on the first of the month',
  metadata: { source: 'chat' },
  memoryType: 'fact',
  visibility: 'private',
  importance: 0.5,
  tier: 'warm',
  tierExplicit: false,
  sessionId: SESSION,
  projectId: PROJECT,
  embedding: vector(7),
  embeddingModel: MODEL,
  embeddingStatus: 'ready',
};

export const memories = entriesOf('memoriesRepository', memoriesRepository, {
  insertMany: [{ args: [[NEW]] }],
  findLive: [{ args: [ACCOUNT, MEMORY] }],
  findLiveForUpdate: [{ args: [ACCOUNT, MEMORY] }],
  timesOf: [{ args: [ACCOUNT, MEMORIES.slice(0, 2)] }],
  findAny: [{ args: [ACCOUNT, MEMORY] }],
  findLiveByIds: [{ args: [ACCOUNT, MEMORIES.slice(0, 2)] }],
  list: [
    { name: 'first page', args: [ACCOUNT, { agentId: AGENT }, { limit: 20, offset: 0 }] },
    {
      name: 'every filter, next page by cursor',
      args: [ACCOUNT, { agentId: AGENT, memoryType: 'fact', tier: 'warm', sessionId: SESSION, projectId: PROJECT, archived: false, visibility: 'private', embeddingStatus: 'ready', expiresBefore: AT }, { limit: 20, offset: 0, cursor: { createdAt: AT.toISOString(), id: MEMORY } }],
    },
  ],
  existingClientIds: [{ args: [ACCOUNT, ['client-1', 'client-2']] }],
  update: [
    { name: 'content and metadata', args: [ACCOUNT, MEMORY, { content: 'Invoices are stored for ten years', embedding: vector(8), embeddingModel: MODEL, metadata: { reviewed: true } }] },
    { name: 'restoring a version', args: [ACCOUNT, MEMORY, { metadata: { source: 'chat' }, replaceMetadata: true, revive: true, sessionId: null, projectId: null }] },
  ],
  softDelete: [{ args: [ACCOUNT, MEMORY] }],
  restore: [{ args: [ACCOUNT, MEMORY] }],
  nearestOfAgent: [{ args: [ACCOUNT, AGENT, vector(0), MODEL] }],
  lockAgentsForDedup: [{ args: [[{ accountId: ACCOUNT, agentId: AGENT }]] }],
  semanticCandidates: [
    { name: 'top 3: the index answers', args: [SEARCH, vector(0), 3] },
    { name: 'top 100: deeper than the session ef_search, and more than the rows', args: [FILTERED_SEARCH, vector(0), 100] },
  ],
  explainSemantic: [{ args: [SEARCH, vector(0), 3] }],
  keywordCandidates: [
    { name: 'words', args: ({ words }) => [words, SEARCH, 'postgresql invoices', 3] },
    { name: 'web-search syntax', args: ({ words }) => [words, SEARCH, '"billing service" -pgbouncer', 3] },
  ],
  graphCandidates: [{ args: [SEARCH, ['postgresql'], 3] }],
});
