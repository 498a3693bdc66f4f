import { embeddingStateRepository, reembedRepository } from '../../../src/repositories/reembed.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, MEMORY, MODEL, RUN, TARGET_MODEL, runRow, vector } from '../fixtures';

const CURSOR = { table: 'memories' as const, account_id: ACCOUNT, id: MEMORY };
const ITEM = { account_id: ACCOUNT, id: MEMORY, text: 'The billing service stores invoices in PostgreSQL', version: '1234' };

export const embeddingState = entriesOf('embeddingStateRepository', embeddingStateRepository, {
  get: [{ args: [] }],
  ensure: [{ args: [{ active_model: MODEL, dimensions: 384 }] }],
});

export const reembed = entriesOf('reembedRepository', reembedRepository, {
  open: [{ args: [] }],
  latest: [{ args: [] }],
  countMissing: [
    { name: 'staging', args: [TARGET_MODEL, 'stage'] },
    { name: 'the sweep after the switch', args: [TARGET_MODEL, 'sweep'] },
  ],
  create: [{ args: [{ fromModel: MODEL, targetModel: TARGET_MODEL, dimensions: 384, total: 5 }] }],
  lease: [{ args: [RUN, 'worker-1', 60_000] }],
  progress: [{ args: [RUN, 'worker-1', { done: 3, cursor: CURSOR, ratePerSecond: 120, growTotal: 2 }] }],
  resetTotal: [{ args: [RUN, 2] }],
  nextBatch: [
    { name: 'staging, from the start', args: ['memories', TARGET_MODEL, 'stage', null, 64] },
    { name: 'the sweep, after a cursor', args: ['decisions', TARGET_MODEL, 'sweep', { ...CURSOR, table: 'decisions' }, 64] },
  ],
  store: [
    { name: 'staging', args: ['memories', 'stage', TARGET_MODEL, [{ item: ITEM, vector: vector(9) }]] },
    { name: 'the sweep', args: ['memories', 'sweep', TARGET_MODEL, [{ item: ITEM, vector: vector(9) }]] },
  ],
  ensureStagingIndex: [{ name: 'TIME: the clock, base 36, in the new index name', args: ['memories', 384], mask: [/_vector_384_[0-9a-z]+_idx/, '_vector_384_TIME_idx'] }],
  switchModels: [{ args: [runRow(), 'worker-1', 5_000] }],
  clearStaged: [{ args: ['memories', 1000] }],
  finish: [{ args: [RUN, 'failed', 'the model could not be loaded'] }],
});
