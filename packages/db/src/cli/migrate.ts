import { loadConfig, secretBoxFor } from '@ams/core';
import { createDatabase } from '../knex';
import { migrateLatest } from '../migrate';
import { sealWebhookSecrets } from '../seal-webhook-secrets';

/** `npm run migrate`: applies pending migrations to DATABASE_URL, or the embedded store under DATA_DIR. */
async function main(): Promise<void> {
  const config = loadConfig();
  const db = await createDatabase(config);
  try {
    const applied = await migrateLatest(db.knex);
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date.');
    const sealed = await sealWebhookSecrets(db.knex, secretBoxFor(config));
    if (sealed) console.log(`Sealed ${sealed} webhook secret(s) with the current key.`);
  } finally {
    await db.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
