import { retieringRepository, RETIERING_DEFAULTS } from '../../../src/repositories/retiering.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AT, EARLIER, MEMORY } from '../fixtures';

export const retiering = entriesOf('retieringRepository', retieringRepository, {
  settings: [{ args: [ACCOUNT] }],
  saveSettings: [{ args: [ACCOUNT, { enabled: true, promote_recalls: 5 }] }],
  claimDue: [{ args: [10, 3_600_000] }],
  release: [{ args: [[ACCOUNT]] }],
  foldRecalls: [
    { args: [ACCOUNT, EARLIER, AT, 7] },
    { name: 'the first fold, up to now', args: [ACCOUNT, null, null, 7] },
  ],
  retierBatch: [{ args: [{ ...RETIERING_DEFAULTS, enabled: true, account_id: ACCOUNT }, null, 500, AT] }],
  finishRun: [{ args: [ACCOUNT, 3] }],
  moves: [{ args: [ACCOUNT, { memoryId: MEMORY }, { limit: 20, offset: 0 }] }],
});
