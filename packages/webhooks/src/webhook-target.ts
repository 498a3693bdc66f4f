import { ApiError } from '@ams/core';
import { webhookTargetRefusal } from './target-policy';
import type { AppContext } from './deps';

/** 422 on `field` when a webhook URL is refused at registration (credentials, a non-public host). */
export function assertWebhookTarget(ctx: AppContext, field: string, url: string): void {
  const refusal = webhookTargetRefusal(url, { allowLoopback: ctx.config.webhooks.allowLoopback });
  if (refusal) throw ApiError.invalidField(field, `${field} ${refusal}`);
}
