import { webhooksRepository } from '../../../src/repositories/webhooks.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, WEBHOOK } from '../fixtures';

export const webhooks = entriesOf('webhooksRepository', webhooksRepository, {
  insert: [{ args: [ACCOUNT, { url: 'https://hooks.example.com/new', eventTypes: ['memory.created', 'memory.deleted'], description: 'CI', secretSealed: 'v1:key-1:sealed' }] }],
  find: [{ args: [ACCOUNT, WEBHOOK] }],
  listAll: [{ args: [ACCOUNT] }],
  update: [{ args: [ACCOUNT, WEBHOOK, { url: 'https://hooks.example.com/v2', eventTypes: ['memory.created'], enabled: false, disabledReason: 'too many failures' }] }],
  lockSecretsToSeal: [{ args: ['key-2', 100] }],
  setSealedSecret: [{ args: [ACCOUNT, WEBHOOK, 'v1:key-2:sealed'] }],
  delete: [{ args: [ACCOUNT, WEBHOOK] }],
});
