import { embeddingQueueRepository } from '../../../src/repositories/embedding-queue.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AT, MEMORY, MODEL, PENDING_MEMORY, memoryRow, vector } from '../fixtures';

export const embeddingQueue = entriesOf('embeddingQueueRepository', embeddingQueueRepository, {
  claim: [
    { name: 'a worker: the accounts with work waiting, then each one\'s claim', args: [{ limit: 32, stuckAfterMs: 300_000, maxAttempts: 5 }] },
    { name: 'the API embedding its own create', args: [{ limit: 1, stuckAfterMs: 300_000, maxAttempts: 5, only: { accountId: ACCOUNT, ids: [PENDING_MEMORY] } }] },
  ],
  completeMany: [{ args: [[{ row: memoryRow(), vector: vector(5) }], MODEL] }],
  setAsideAsDuplicate: [{ args: [memoryRow(), MEMORY] }],
  fail: [{ args: [memoryRow(), 'the model refused the input', AT] }],
  heartbeat: [{ args: [[memoryRow()]] }],
  release: [{ args: [[memoryRow()]] }],
  failAbandoned: [{ args: [300_000, 5] }],
  requeue: [
    { args: [ACCOUNT, PENDING_MEMORY] },
    { name: 'failed ones only', args: [ACCOUNT, PENDING_MEMORY, 'failed'] },
  ],
  waiting: [{ args: [100_000] }],
  oldestPendingAgeSeconds: [{ args: [] }],
});
