import { patternsRepository } from '../../../src/repositories/patterns.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, MODEL, OTHER_PROJECT, PATTERN, PROJECT, vector } from '../fixtures';

export const patterns = entriesOf('patternsRepository', patternsRepository, {
  insert: [
    {
      args: [ACCOUNT, {
        title: 'Feature flags for risky changes', description: 'Ship behind a flag, then turn it on', scope: 'project', category: 'deploy', tags: ['deploy', 'flags'],
        exampleCode: 'if (flags.newBilling) { … }', metadata: {}, embedding: vector(6), embeddingModel: MODEL, sourceProjectId: PROJECT,
      }],
    },
  ],
  findLive: [{ args: [ACCOUNT, PATTERN] }],
  list: [{ args: [ACCOUNT, { category: 'deploy', scope: 'global', tag: 'deploy' }, { limit: 20, offset: 0 }] }],
  update: [{ args: [ACCOUNT, PATTERN, { title: 'Migrations before code', tags: ['deploy'], metadata: { reviewed: true }, embedding: vector(6), embeddingModel: MODEL }] }],
  softDelete: [{ args: [ACCOUNT, PATTERN] }],
  similar: [
    { args: [ACCOUNT, vector(2), MODEL, 1] },
    { name: 'for a project, in a category', args: [ACCOUNT, vector(2), MODEL, 1, 'deploy', PROJECT] },
  ],
  adopt: [{ args: [ACCOUNT, PATTERN, OTHER_PROJECT] }],
  unadopt: [{ args: [ACCOUNT, PATTERN, OTHER_PROJECT] }],
  withdrawProjectAdoptions: [{ args: [ACCOUNT, PROJECT] }],
  notAdoptedBy: [{ args: [ACCOUNT, OTHER_PROJECT, 10] }],
  adoptedByAll: [{ args: [ACCOUNT, [PROJECT, OTHER_PROJECT]] }],
  adoptedByProject: [{ args: [ACCOUNT, PROJECT] }],
});
