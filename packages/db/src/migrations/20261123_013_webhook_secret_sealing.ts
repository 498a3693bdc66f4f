import type { Migration } from './migration';

/**
 * Webhook secrets move from plaintext `secret` to `secret_sealed` (AES-256-GCM, see SecretBox in
 * @ams/core). The key lives in configuration, not in the database, so the rows themselves are
 * sealed by sealWebhookSecrets() right after the migrations at every start (and by `npm run
 * migrate`); `secret` is kept, emptied, so a process of the previous version still starting up
 * reads NULL rather than failing.
 */
export const webhookSecretSealing: Migration = {
  name: '20261123_013_webhook_secret_sealing',
  up: [`ALTER TABLE webhooks ADD COLUMN secret_sealed text`],
};
