import { projectsRepository } from '../../../src/repositories/projects.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, OTHER_PROJECT, PROJECT } from '../fixtures';

const PROJECT_FIELDS = { accountId: ACCOUNT, slug: 'search', name: 'Search', description: 'Search service', stack: { language: 'TypeScript' }, repoUrl: 'https://git.example.com/search', metadata: {} };

export const projects = entriesOf('projectsRepository', projectsRepository, {
  findLive: [{ args: [ACCOUNT, PROJECT] }],
  findLiveBySlug: [{ args: [ACCOUNT, 'billing'] }],
  ensureBySlug: [
    { name: 'a project that exists', args: [ACCOUNT, 'billing'] },
    { name: 'a new project', args: [ACCOUNT, 'search'] },
  ],
  insert: [{ args: [PROJECT_FIELDS] }],
  completeRegistration: [{ args: [{ ...PROJECT_FIELDS, slug: 'billing' }] }],
  list: [{ args: [ACCOUNT, { limit: 20, offset: 0 }] }],
  update: [{ args: [ACCOUNT, PROJECT, { name: 'Billing v2', description: null, stack: { language: 'Go' }, repoUrl: null, metadata: { team: 'payments' } }] }],
  softDelete: [{ args: [ACCOUNT, OTHER_PROJECT] }],
  memoryCounts: [{ args: [ACCOUNT, [PROJECT, OTHER_PROJECT]] }],
  contextMemories: [{ args: [ACCOUNT, PROJECT, 10] }],
});
