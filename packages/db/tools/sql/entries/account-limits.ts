import { accountLimitsRepository } from '../../../src/repositories/account-limits.repository';
import { accountUsageRepository } from '../../../src/repositories/account-usage.repository';
import { entriesOf } from '../entry';
import { ACCOUNT } from '../fixtures';

const LIMITS = { max_memories: 1000, max_storage_bytes: null, requests_per_minute: 600, searches_per_day: null, embeddings_per_day: 5000, fair_share_weight: 2 };

export const accountLimits = entriesOf('accountLimitsRepository', accountLimitsRepository, {
  all: [{ args: [] }],
  forAccount: [{ args: [ACCOUNT] }],
  save: [{ args: [ACCOUNT, LIMITS] }],
});

export const accountUsage = entriesOf('accountUsageRepository', accountUsageRepository, {
  applyStorageDefaults: [{ args: [1000, 0] }],
  setStorageLimits: [{ args: [ACCOUNT, 1000, 104857600] }],
  stored: [{ args: [ACCOUNT] }],
  addDaily: [{ args: [[{ accountId: ACCOUNT, day: '2026-11-28', requests: 12, searches: 3, embeddings: 5 }]] }],
  activity: [{ args: [ACCOUNT, '2026-11-28', '2026-11-01'] }],
});
