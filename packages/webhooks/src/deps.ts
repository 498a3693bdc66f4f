import type { SecretBox } from '@ams/core';
import type { Db } from '@ams/db';

/** Who is asking: the account whose webhooks these are. */
export interface WebhookCaller {
  accountId: string;
}

/** Which webhook URLs registration accepts (WEBHOOK_ALLOW_LOOPBACK). */
export interface TargetPolicy {
  allowLoopback: boolean;
}

/** What the webhook rules use: the database, the URL policy, the secrets' key, the dispatcher. */
export interface WebhookDeps extends TargetPolicy {
  db: Db;
  /** The key that seals secrets at rest: asked for only when a secret is set (it may be made on first use). */
  secretBox: () => SecretBox;
  /** Hands deliveries, recorded in a transaction that has committed, to the dispatcher. Never throws. */
  dispatch?: (accountId: string, deliveryIds: string[]) => void;
}
