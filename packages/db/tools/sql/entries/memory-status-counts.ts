import { memoryStatusCountsRepository } from '../../../src/repositories/memory-status-counts.repository';
import { entriesOf } from '../entry';
import { ACCOUNT } from '../fixtures';

export const memoryStatusCounts = entriesOf('memoryStatusCountsRepository', memoryStatusCountsRepository, {
  byEmbeddingStatus: [{ args: [ACCOUNT] }],
});
