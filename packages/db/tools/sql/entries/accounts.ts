import { accountsRepository } from '../../../src/repositories/accounts.repository';
import { entriesOf } from '../entry';
import { ACCOUNT } from '../fixtures';

export const accounts = entriesOf('accountsRepository', accountsRepository, {
  insert: [{ args: [{ email: 'new@example.com', passwordHash: 'scrypt$hash' }] }],
  lockAgainstInserts: [{ args: [] }],
  findByEmail: [{ args: ['me@example.com'] }],
  exists: [{ args: [ACCOUNT] }],
  count: [{ args: [] }],
  operatorId: [{ args: [] }],
});
