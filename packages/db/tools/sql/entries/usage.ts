import { usageRepository } from '../../../src/repositories/usage.repository';
import { entriesOf } from '../entry';
import { ACCOUNT } from '../fixtures';

export const usage = entriesOf('usageRepository', usageRepository, {
  forAccount: [{ args: [ACCOUNT] }],
});
