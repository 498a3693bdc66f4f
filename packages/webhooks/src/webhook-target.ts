import { ApiError } from '@ams/core';
import { webhookTargetRefusal } from './target-policy';
import type { TargetPolicy } from './deps';

/** 422 on `field` when a webhook URL is refused at registration (credentials, a non-public host). */
export function assertWebhookTarget(policy: TargetPolicy, field: string, url: string): void {
  const refusal = webhookTargetRefusal(url, { allowLoopback: policy.allowLoopback });
  if (refusal) throw ApiError.invalidField(field, `${field} ${refusal}`);
}
