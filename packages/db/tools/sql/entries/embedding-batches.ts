import { embeddingBatchesRepository } from '../../../src/repositories/embedding-batches.repository';
import { entriesOf } from '../entry';

export const embeddingBatches = entriesOf('embeddingBatchesRepository', embeddingBatchesRepository, {
  record: [{ args: [{ worker: 'worker-1', memories: 32, durationMs: 180 }] }],
  recent: [{ args: [60_000] }],
  prune: [{ args: [600_000] }],
});
