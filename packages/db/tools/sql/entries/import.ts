import { importRepository } from '../../../src/repositories/import.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AGENT, DECISION, EARLIER, ENTITY, MEMORY, NEW_MEMORY, PATTERN, OTHER_PROJECT } from '../fixtures';

const IMPORTED_MEMORY = { id: NEW_MEMORY, agent_id: AGENT, content: 'Invoices are sent on the first of the month', memory_type: 'fact', tier: 'warm', created_at: EARLIER };

export const importEntries = entriesOf('importRepository', importRepository, {
  findById: [{ args: ['memory', ACCOUNT, MEMORY] }],
  existingIds: [{ args: ['memory', ACCOUNT, [MEMORY, NEW_MEMORY]] }],
  findByNaturalKey: [
    { name: 'agent', args: ['agent', ACCOUNT, { name: 'planner' }] },
    { name: 'project', args: ['project', ACCOUNT, { slug: 'billing' }] },
    { name: 'session', args: ['session', ACCOUNT, { external_id: 'chat-1' }] },
    { name: 'entity', args: ['entity', ACCOUNT, { entity_type: 'technology', name: 'postgresql' }] },
    { name: 'memory', args: ['memory', ACCOUNT, { client_id: 'client-1' }] },
  ],
  insert: [{ args: ['memory', ACCOUNT, IMPORTED_MEMORY] }],
  overwrite: [{ args: ['memory', ACCOUNT, MEMORY, { content: 'Invoices are archived after ten years', importance: 0.7 }] }],
  setSupersededBy: [{ args: [ACCOUNT, DECISION, DECISION] }],
  upsertEntityLink: [
    { args: [ACCOUNT, { entity_id: ENTITY, memory_id: MEMORY, relationship: 'mentioned_in', relevance_score: 0.7, created_at: EARLIER }, false] },
    { name: 'overwriting', args: [ACCOUNT, { entity_id: ENTITY, memory_id: MEMORY, relationship: 'mentioned_in', relevance_score: 0.7, created_at: EARLIER }, true] },
  ],
  insertAdoption: [{ args: [ACCOUNT, { pattern_id: PATTERN, project_id: OTHER_PROJECT, created_at: EARLIER }] }],
});
