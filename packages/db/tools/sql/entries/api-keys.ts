import { apiKeysRepository } from '../../../src/repositories/api-keys.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AGENT, API_KEY, AT } from '../fixtures';

export const apiKeys = entriesOf('apiKeysRepository', apiKeysRepository, {
  insert: [{ args: [{ accountId: ACCOUNT, name: 'deploy', keyHash: 'hash-of-another-key', keyPrefix: 'ams_dp', scopes: ['memories:read', 'memories:write'], agentId: AGENT, expiresAt: AT }] }],
  findByHash: [{ args: ['hash-of-the-key'] }],
  list: [{ args: [ACCOUNT, { limit: 20, offset: 0 }] }],
  revoke: [{ args: [ACCOUNT, API_KEY] }],
  touch: [{ args: [ACCOUNT, API_KEY] }],
});
