import { memoryExpiryRepository } from '../../../src/repositories/memory-expiry.repository';
import { entriesOf } from '../entry';

export const memoryExpiry = entriesOf('memoryExpiryRepository', memoryExpiryRepository, {
  expireDue: [{ args: [500] }],
});
