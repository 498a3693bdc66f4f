import { projectRelationshipsRepository } from '../../../src/repositories/project-relationships.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, OTHER_PROJECT, PROJECT } from '../fixtures';

export const projectRelationships = entriesOf('projectRelationshipsRepository', projectRelationshipsRepository, {
  link: [{ args: [{ accountId: ACCOUNT, sourceId: PROJECT, targetId: OTHER_PROJECT, relationshipType: 'depends_on', metadata: {} }] }],
  edgesOf: [
    { args: [ACCOUNT, PROJECT, { directions: ['outgoing', 'incoming'] }] },
    { name: 'outgoing, of some types', args: [ACCOUNT, PROJECT, { directions: ['outgoing'], types: ['depends_on'] }] },
  ],
});
