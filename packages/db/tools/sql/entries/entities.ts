import { entitiesRepository, entityLinksRepository } from '../../../src/repositories/entities.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, ENTITY, MEMORIES, MEMORY } from '../fixtures';

export const entities = entriesOf('entitiesRepository', entitiesRepository, {
  insert: [{ args: [{ accountId: ACCOUNT, name: 'PgBouncer', entityType: 'technology', metadata: { homepage: 'https://www.pgbouncer.org' } }] }],
  findLive: [{ args: [ACCOUNT, ENTITY] }],
  list: [{ args: [ACCOUNT, { entityType: 'technology' }, { limit: 20, offset: 0 }] }],
  update: [{ args: [ACCOUNT, ENTITY, { name: 'Postgres', entityType: 'technology', metadata: { version: 16 } }] }],
  softDelete: [{ args: [ACCOUNT, ENTITY] }],
  countsFor: [{ args: [ACCOUNT, [ENTITY]] }],
  entitiesForMemories: [{ args: [ACCOUNT, MEMORIES.slice(0, 2)] }],
});

export const entityLinks = entriesOf('entityLinksRepository', entityLinksRepository, {
  link: [{ args: [{ accountId: ACCOUNT, entityId: ENTITY, memoryId: MEMORY, relationship: 'about', relevanceScore: 0.8 }] }],
});
