import type { Knex } from 'knex';
import type { SecretBox } from '@ams/core';
import { webhooksRepository, WebhookRow } from './repositories/webhooks.repository';

const CHUNK = 500;

/** The webhook's secret in clear, whichever way it is stored; null when it has none. */
export function revealWebhookSecret(row: Pick<WebhookRow, 'account_id' | 'secret' | 'secret_sealed'>, box: SecretBox): string | null {
  if (row.secret_sealed) return box.open(row.secret_sealed, row.account_id);
  return row.secret;
}

export const sealWebhookSecret = (box: SecretBox, accountId: string, secret: string) => box.seal(secret, accountId);

/**
 * The data half of migration 013: seals every plaintext secret, and re-seals those sealed by a
 * previous key (rotation), with the current key. Idempotent; run after the migrations at start-up.
 * Returns how many rows changed.
 */
export async function sealWebhookSecrets(knex: Knex, box: SecretBox): Promise<number> {
  let total = 0;
  for (;;) {
    const changed = await knex.transaction(async (trx) => {
      const rows = await webhooksRepository.lockSecretsToSeal(trx, box.currentKeyId, CHUNK);
      for (const row of rows) {
        const plain = revealWebhookSecret(row, box);
        if (plain !== null) await webhooksRepository.setSealedSecret(trx, row.account_id, row.id, sealWebhookSecret(box, row.account_id, plain));
      }
      return rows.length;
    });
    total += changed;
    if (changed < CHUNK) return total;
  }
}
